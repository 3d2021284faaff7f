#!/usr/bin/env python3
"""The keyword front-end's part-of-speech filter against an independent tagger.

No tagged treebank installs offline from a package registry here, so the
vendored Brill tagger's accuracy cannot be measured directly. This script
measures its agreement with Lingua::EN::Tagger (Coburn; Debian
`liblingua-en-tagger-perl`, a probabilistic tagger trained on the Penn
Treebank) on the decision that matters for keyword extraction — is a word a
candidate (noun, verb or adjective) or not — and on the coarse class.

    apt-get install liblingua-en-tagger-perl
    python3 bench/pos_agreement.py FILE_OR_DIR [...]   # plain-text documents

Each sentence of plackett's reading (`plackett keywords tag --output json`)
is given to Lingua::EN::Tagger as space-separated tokens; sentences that it
splits differently (clitics such as "n't") are skipped and counted. Penn
tags map to coarse classes: NN* noun, VB* verb (forms of be, have and do
are auxiliaries, which neither filter keeps), JJ* adjective, anything else
other. The plackett binary is target/release/plackett unless PLACKETT names
another.
"""
import json
import os
import subprocess
import sys

PERL = r"""
use Lingua::EN::Tagger;
my $p = Lingua::EN::Tagger->new(stem => 0);
binmode STDIN, ':utf8'; binmode STDOUT, ':utf8';
$| = 1;
while (my $line = <STDIN>) {
    chomp $line;
    my $t = $p->add_tags($line) // '';
    my @out;
    while ($t =~ m{<(\w+)>(.*?)</\1>}g) { push @out, "$2\t$1"; }
    print join("\x1f", @out), "\n";
}
"""

AUX = {"is", "are", "was", "were", "be", "been", "being", "am", "'s", "'re",
       "has", "have", "had", "having", "do", "does", "did"}


def penn_class(word, tag):
    tag = tag.lower()
    if tag.startswith("nn"):
        return "noun"
    if tag.startswith("vb"):
        return "other" if word in AUX else "verb"
    if tag.startswith("jj"):
        return "adj"
    return "other"


def ours_class(pos, kept):
    if pos in ("NOUN", "PROPN"):
        return "noun"
    if pos == "VERB":
        return "verb"
    if pos == "ADJ":
        return "adj"
    if pos is None:
        return "noun" if kept else "other"
    return "other"


def files(args):
    for a in args:
        if os.path.isdir(a):
            for n in sorted(os.listdir(a)):
                if n.endswith(".txt"):
                    yield os.path.join(a, n)
        else:
            yield a


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: pos_agreement.py FILE_OR_DIR [...]")
    plackett = os.environ.get("PLACKETT", "target/release/plackett")
    paths = list(files(sys.argv[1:]))
    tagger = subprocess.Popen(["perl", "-e", PERL], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, encoding="utf-8")
    classes = ["noun", "verb", "adj", "other"]
    confusion = {(a, b): 0 for a in classes for b in classes}
    kept_agree = kept_total = skipped = sentences = 0
    for i in range(0, len(paths), 25):
        out = subprocess.run([plackett, "keywords", "tag", "--output", "json", *paths[i:i + 25]],
                             check=True, capture_output=True, text=True).stdout
        for doc in json.loads(out)["documents"]:
            for s in doc["sentences"]:
                sentences += 1
                tagger.stdin.write(" ".join(t["word"] for t in s) + "\n")
                tagger.stdin.flush()
                theirs = [x.split("\t") for x in tagger.stdout.readline().rstrip("\n").split("\x1f") if x]
                if [w for w, _ in theirs] != [t["word"] for t in s]:
                    skipped += 1
                    continue
                for t, (w, tag) in zip(s, theirs):
                    if t["pos"] == "PUNCT" or not any(c.isalpha() for c in w):
                        continue
                    a, b = ours_class(t["pos"], t["kept"]), penn_class(w, tag)
                    confusion[(a, b)] += 1
                    kept_total += 1
                    kept_agree += t["kept"] == (b != "other")
    tagger.stdin.close()
    tagger.wait()
    words = sum(confusion.values())
    print(f"{len(paths)} documents, {sentences} sentences ({skipped} skipped: "
          f"tokenised differently), {words} words compared")
    print(f"candidate decision (noun/verb/adjective or not) agrees on "
          f"{kept_agree / kept_total:.3f} of words")
    same = sum(confusion[(c, c)] for c in classes)
    print(f"coarse class agrees on {same / words:.3f} of words")
    print("rows: plackett's class; columns: Lingua::EN::Tagger's")
    print("        " + " ".join(f"{c:>7}" for c in classes))
    for a in classes:
        print(f"{a:>7} " + " ".join(f"{confusion[(a, b)]:7d}" for b in classes))


if __name__ == "__main__":
    main()
