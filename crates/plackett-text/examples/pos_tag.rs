//! Tags whitespace-separated sentences from stdin, one per line, with the
//! vendored Brill tagger (`plackett_text::pos`): one line of Universal POS
//! tags per sentence, `-` for a word the tagger could not tag. Used to check
//! the applier against the `harper-brill` crate's own on the same input.
use plackett_text::pos::BrillTagger;
use std::io::BufRead;

fn main() {
    let t = BrillTagger::english();
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("stdin is UTF-8");
        let words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        let tags: Vec<String> = t
            .tag(&words)
            .iter()
            .map(|t| t.map_or("-".to_string(), |u| format!("{u:?}")))
            .collect();
        println!("{}", tags.join(" "));
    }
}
