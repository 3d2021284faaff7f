//! A run's output files as one transaction: all of them replace their
//! targets, or none does.
//!
//! The protocol (docs/cli.md, "Outputs"):
//!
//! 1. **Reserve** every target before any work: resolve it (through
//!    symlinks to the file they name, `./` and `..` removed), refuse it if
//!    it is one of the run's inputs (the same canonical path, or the same
//!    device and inode: a hard link) or another output of the run, and
//!    create its temporary file beside the target now, so that a missing or
//!    read-only directory fails before the work and not after it.
//! 2. **Write** each output into its temporary (`.NAME.plackett-PID-N.tmp`).
//! 3. **Commit**: with more than one file, first a journal naming every
//!    (temporary, target) pair is placed in each target directory; then the
//!    temporaries are renamed over their targets; then the journals are
//!    removed. A failure or a signal before the commit removes every
//!    temporary and leaves every previous file as it was.
//!
//! A run killed outright (`kill -9`) cannot clean up; the next run that
//! writes into the same directory does it for it: temporaries of processes
//! that no longer exist are removed, and a dead process's journal is rolled
//! forward (its temporaries renamed into place) if the journal reached every
//! directory it names, which happens before the first rename, or rolled back
//! (its temporaries removed) otherwise. So no target is left holding one
//! run's output beside another run's, once a later run has looked.
//!
//! Special files are never replaced: a FIFO, a character or block device or
//! a socket (and any path under `/dev/` or `/proc/`, such as `/dev/stdout`)
//! is opened and written directly at commit, after the renames; a symlink is
//! written through (its target file is replaced, the link stays).

use crate::error::{Error, Result};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Temporaries of live transactions in this process, for [`abandon_all`];
/// held locked for the whole of a commit, so a signal handler that cleans up
/// waits for a commit under way to finish rather than cutting it in two.
static LIVE: Mutex<Live> = Mutex::new(Live {
    tmps: Vec::new(),
    abandoned: false,
});

struct Live {
    tmps: Vec<PathBuf>,
    abandoned: bool,
}

/// Numbers the temporaries of one process.
static SEQ: AtomicUsize = AtomicUsize::new(0);

fn live() -> std::sync::MutexGuard<'static, Live> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Remove the temporaries of every transaction of this process that has
/// not committed, and refuse any later commit: what a signal handler calls
/// before the process exits.
pub fn abandon_all() {
    let mut l = live();
    for t in l.tmps.drain(..) {
        let _ = fs::remove_file(t);
    }
    l.abandoned = true;
}

/// An existing file's identity: canonical path and, on Unix, device and
/// inode (which a hard link shares).
#[derive(Debug, Clone)]
struct FileId {
    canon: PathBuf,
    node: Option<(u64, u64)>,
}

fn node(m: &fs::Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        None
    }
}

fn is_special(m: &fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = m.file_type();
        t.is_fifo() || t.is_char_device() || t.is_block_device() || t.is_socket()
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        false
    }
}

impl FileId {
    fn of(path: &Path) -> Option<FileId> {
        let m = fs::metadata(path).ok()?;
        Some(FileId {
            canon: fs::canonicalize(path).ok()?,
            node: node(&m),
        })
    }

    fn same(&self, other: &FileId) -> bool {
        self.canon == other.canon || (self.node.is_some() && self.node == other.node)
    }
}

#[derive(Debug)]
enum Kind {
    /// A regular file (existing or not), replaced by renaming `tmp` over `target`.
    Replace { tmp: PathBuf, target: PathBuf },
    /// A special file, written in place at commit.
    Direct {
        path: PathBuf,
        data: Option<Vec<u8>>,
    },
}

#[derive(Debug)]
struct Target {
    /// The option that names it (`--out`), for messages.
    label: String,
    /// The path as given.
    given: String,
    /// What it resolves to (for comparing outputs with each other).
    id: FileId,
    kind: Kind,
    written: bool,
}

/// One run's outputs (module documentation).
#[derive(Debug, Default)]
pub struct Transaction {
    inputs: Vec<(String, FileId)>,
    targets: Vec<Target>,
}

fn err(label: &str, given: &str, msg: impl Into<String>) -> Error {
    let at = if label.is_empty() {
        given.to_string()
    } else {
        format!("{label} {given}")
    };
    Error::io(&at, std::io::Error::other(msg.into()))
}

/// `path` with its symlinks followed to the end, for a path whose final
/// component may not exist yet: the directory is canonicalised; a dangling
/// link is followed to the file it would create.
fn resolve(label: &str, given: &str) -> Result<PathBuf> {
    let mut p = PathBuf::from(given);
    for _ in 0..40 {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = fs::read_link(&p).map_err(|e| err(label, given, e.to_string()))?;
                p = match p.parent() {
                    Some(d) if to.is_relative() => d.join(to),
                    _ => to,
                };
            }
            _ => {
                let name = p
                    .file_name()
                    .ok_or_else(|| err(label, given, "names a directory, not a file"))?
                    .to_owned();
                let dir = p
                    .parent()
                    .filter(|d| !d.as_os_str().is_empty())
                    .unwrap_or(Path::new("."));
                let dir = fs::canonicalize(dir)
                    .map_err(|e| err(label, given, format!("directory {}: {e}", dir.display())))?;
                if !dir.is_dir() {
                    return Err(err(
                        label,
                        given,
                        format!("{} is not a directory", dir.display()),
                    ));
                }
                return Ok(dir.join(name));
            }
        }
    }
    Err(err(label, given, "too many levels of symbolic links"))
}

fn tmp_name(target: &Path, pid: u32, seq: usize) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    target.with_file_name(format!(".{name}.plackett-{pid}-{seq}.tmp"))
}

/// The process id in a temporary's name `.NAME.plackett-PID-N.tmp`.
fn tmp_pid(name: &str) -> Option<u32> {
    let stem = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (_, tail) = stem.rsplit_once(".plackett-")?;
    let (pid, seq) = tail.split_once('-')?;
    seq.parse::<usize>().ok()?;
    pid.parse().ok()
}

const JOURNAL: &str = ".plackett-journal-";

/// The process id in a journal's name `.plackett-journal-PID-N`.
fn journal_pid(name: &str) -> Option<u32> {
    let (pid, seq) = name.strip_prefix(JOURNAL)?.split_once('-')?;
    seq.parse::<usize>().ok()?;
    pid.parse().ok()
}

/// Whether process `pid` still runs (assumed so where `/proc` cannot tell).
fn alive(pid: u32) -> bool {
    if pid == std::process::id() || !Path::new("/proc/self").exists() {
        return true;
    }
    Path::new(&format!("/proc/{pid}")).exists()
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Journal {
    /// (temporary, target) pairs, absolute.
    renames: Vec<(PathBuf, PathBuf)>,
}

impl Journal {
    fn dirs(&self) -> Vec<PathBuf> {
        let mut d: Vec<PathBuf> = self
            .renames
            .iter()
            .filter_map(|(_, t)| t.parent().map(Path::to_path_buf))
            .collect();
        d.sort();
        d.dedup();
        d
    }
}

/// Finish what dead processes left in `dir`: roll their journals forward or
/// back (module documentation) and remove their temporaries.
pub fn recover(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    for n in &names {
        if journal_pid(n).is_some_and(|p| !alive(p)) {
            replay(&dir.join(n));
        }
    }
    for n in &names {
        if tmp_pid(n).is_some_and(|p| !alive(p)) {
            let _ = fs::remove_file(dir.join(n));
        }
    }
}

fn replay(path: &Path) {
    let Some(name) = path.file_name() else { return };
    let journal: Option<Journal> = fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    let Some(j) = journal else {
        let _ = fs::remove_file(path);
        return;
    };
    let dirs = j.dirs();
    // Renames begin only once every directory holds the journal.
    let complete = dirs.iter().all(|d| d.join(name).exists());
    for (tmp, target) in &j.renames {
        if complete {
            let _ = fs::rename(tmp, target);
        } else {
            let _ = fs::remove_file(tmp);
        }
    }
    for d in dirs {
        let _ = fs::remove_file(d.join(name));
    }
}

impl Transaction {
    /// An empty transaction.
    pub fn new() -> Transaction {
        Transaction::default()
    }

    /// A file the run reads (`path` as the user gave it): no output may
    /// replace it. Paths that name no existing file are ignored.
    pub fn input(&mut self, path: &str) {
        if let Some(id) = FileId::of(Path::new(path)).filter(|i| !i.canon.is_dir()) {
            self.inputs.push((path.to_string(), id));
        }
    }

    /// Claim `path` for the output named by option `label` (`--out`; empty
    /// for none): resolve it, refuse an input of the run or another of its
    /// outputs, and create its temporary now (module documentation).
    pub fn reserve(&mut self, label: &str, path: &str) -> Result<()> {
        if path.is_empty() {
            return Err(err(label, path, "empty file name"));
        }
        let special_place = path.starts_with("/dev/") || path.starts_with("/proc/");
        let meta = fs::metadata(path).ok();
        if meta.as_ref().is_some_and(fs::Metadata::is_dir) {
            return Err(err(label, path, "is a directory; give a file name"));
        }
        let (id, kind) = if special_place || meta.as_ref().is_some_and(is_special) {
            let id = FileId::of(Path::new(path)).unwrap_or(FileId {
                canon: PathBuf::from(path),
                node: None,
            });
            let kind = Kind::Direct {
                path: PathBuf::from(path),
                data: None,
            };
            (id, kind)
        } else {
            let target = resolve(label, path)?;
            let id = FileId {
                node: fs::metadata(&target).ok().as_ref().and_then(node),
                canon: target.clone(),
            };
            (
                id,
                Kind::Replace {
                    tmp: PathBuf::new(),
                    target,
                },
            )
        };
        if let Some((given, _)) = self.inputs.iter().find(|(_, i)| i.same(&id)) {
            let also = if given == path {
                String::new()
            } else {
                format!(" {given}")
            };
            return Err(err(
                label,
                path,
                format!("is the input file{also}; choose another output name"),
            ));
        }
        if let Some(t) = self.targets.iter().find(|t| t.id.same(&id)) {
            let other = if t.label.is_empty() {
                format!("another output ({})", t.given)
            } else {
                format!("the output of {}", t.label)
            };
            return Err(err(
                label,
                path,
                format!("is also {other}; give each output its own file"),
            ));
        }
        let kind = match kind {
            Kind::Replace { target, .. } => {
                if let Some(dir) = target.parent() {
                    recover(dir);
                }
                let tmp = tmp_name(
                    &target,
                    std::process::id(),
                    SEQ.fetch_add(1, Ordering::Relaxed),
                );
                let mut l = live();
                if l.abandoned {
                    return Err(Error::Cancelled);
                }
                fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&tmp)
                    .map_err(|e| {
                        err(
                            label,
                            path,
                            format!(
                                "cannot write in {}: {e}",
                                target.parent().unwrap_or(Path::new(".")).display()
                            ),
                        )
                    })?;
                l.tmps.push(tmp.clone());
                Kind::Replace { tmp, target }
            }
            k => k,
        };
        self.targets.push(Target {
            label: label.to_string(),
            given: path.to_string(),
            id,
            kind,
            written: false,
        });
        Ok(())
    }

    /// Whether `path` (as given, or as it resolves) is reserved.
    fn find(&self, path: &str) -> Option<usize> {
        self.targets
            .iter()
            .position(|t| t.given == path)
            .or_else(|| {
                let r = resolve("", path).ok()?;
                self.targets.iter().position(|t| t.id.canon == r)
            })
    }

    /// Put `content` in output `path`, reserving it first (without an
    /// option name) if it is not reserved yet; nothing replaces the target
    /// before [`commit`](Self::commit).
    pub fn write(&mut self, path: &str, content: &[u8]) -> Result<()> {
        let k = match self.find(path) {
            Some(k) => k,
            None => {
                self.reserve("", path)?;
                self.targets.len() - 1
            }
        };
        let t = &mut self.targets[k];
        match &mut t.kind {
            Kind::Replace { tmp, .. } => {
                let mut f =
                    fs::File::create(&*tmp).map_err(|e| err(&t.label, &t.given, e.to_string()))?;
                f.write_all(content)
                    .and_then(|_| f.sync_all())
                    .map_err(|e| err(&t.label, &t.given, e.to_string()))?;
            }
            Kind::Direct { data, .. } => *data = Some(content.to_vec()),
        }
        t.written = true;
        Ok(())
    }

    /// Replace every written target at once (module documentation);
    /// reserved targets that were not written are left as they were.
    pub fn commit(mut self) -> Result<()> {
        let mut l = live();
        if l.abandoned {
            return Err(Error::Cancelled);
        }
        let renames: Vec<(PathBuf, PathBuf)> = self
            .targets
            .iter()
            .filter(|t| t.written)
            .filter_map(|t| match &t.kind {
                Kind::Replace { tmp, target } => Some((tmp.clone(), target.clone())),
                Kind::Direct { .. } => None,
            })
            .collect();
        let journal = Journal { renames };
        let mut journals = Vec::new();
        if journal.renames.len() > 1 {
            let pid = std::process::id();
            let name = format!("{JOURNAL}{pid}-{}", SEQ.fetch_add(1, Ordering::Relaxed));
            let body = serde_json::to_vec(&journal).map_err(|e| Error::Data(e.to_string()))?;
            for d in journal.dirs() {
                let path = d.join(&name);
                let tmp = tmp_name(&path, pid, SEQ.fetch_add(1, Ordering::Relaxed));
                let written = fs::write(&tmp, &body)
                    .and_then(|_| fs::File::open(&tmp)?.sync_all())
                    .and_then(|_| fs::rename(&tmp, &path));
                if let Err(e) = written {
                    let _ = fs::remove_file(&tmp);
                    for j in &journals {
                        let _ = fs::remove_file(j);
                    }
                    return Err(Error::io(&path.display().to_string(), e));
                }
                journals.push(path);
            }
        }
        for (tmp, target) in &journal.renames {
            if let Err(e) = fs::rename(tmp, target) {
                // Before the first rename nothing was replaced; after it the
                // journal lets the next run finish the commit.
                return Err(Error::io(&target.display().to_string(), e));
            }
        }
        for j in &journals {
            let _ = fs::remove_file(j);
        }
        // The renamed temporaries are gone; the ones never written go now.
        for t in &self.targets {
            if let Kind::Replace { tmp, .. } = &t.kind {
                if !t.written {
                    let _ = fs::remove_file(tmp);
                }
                l.tmps.retain(|x| x != tmp);
            }
        }
        drop(l);
        for t in self.targets.drain(..) {
            if let Kind::Direct {
                path,
                data: Some(data),
            } = t.kind
            {
                fs::OpenOptions::new()
                    .write(true)
                    .open(&path)
                    .and_then(|mut f| f.write_all(&data).and_then(|_| f.flush()))
                    .map_err(|e| err(&t.label, &t.given, e.to_string()))?;
            }
        }
        Ok(())
    }
}

impl Drop for Transaction {
    /// An uncommitted transaction removes its temporaries.
    fn drop(&mut self) {
        if self.targets.is_empty() {
            return;
        }
        let mut l = live();
        for t in &self.targets {
            if let Kind::Replace { tmp, .. } = &t.kind {
                let _ = fs::remove_file(tmp);
                l.tmps.retain(|x| x != tmp);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("plackett-tx-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    fn s(p: &Path) -> &str {
        p.to_str().unwrap()
    }

    #[test]
    fn names_parse_back() {
        let t = tmp_name(Path::new("/x/a.b.json"), 41, 7);
        assert_eq!(t, Path::new("/x/.a.b.json.plackett-41-7.tmp"));
        assert_eq!(tmp_pid(".a.b.json.plackett-41-7.tmp"), Some(41));
        assert_eq!(tmp_pid(".a.json.tmp41"), None);
        assert_eq!(journal_pid(".plackett-journal-9-3"), Some(9));
        assert_eq!(journal_pid(".plackett-journal-9"), None);
    }

    #[test]
    fn an_input_under_another_name_is_refused() {
        let d = scratch("alias");
        let input = d.join("in.csv");
        fs::write(&input, "x").unwrap();
        fs::hard_link(&input, d.join("hard.csv")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&input, d.join("soft.csv")).unwrap();
        let mut t = Transaction::new();
        t.input(s(&input));
        let dotted = format!("{}/./in.csv", d.display());
        for p in [
            s(&input),
            s(&d.join("hard.csv")),
            s(&d.join("soft.csv")),
            &dotted,
        ] {
            let e = t.reserve("--out", p).unwrap_err().to_string();
            assert!(e.contains("is the input file"), "{p}: {e}");
        }
        assert_eq!(fs::read(&input).unwrap(), b"x");
    }

    #[test]
    fn two_outputs_naming_one_file_are_refused() {
        let d = scratch("twice");
        let mut t = Transaction::new();
        t.reserve("--out", s(&d.join("a"))).unwrap();
        let again = format!(
            "{}/../{}/a",
            d.display(),
            d.file_name().unwrap().to_str().unwrap()
        );
        let e = t.reserve("--report", &again).unwrap_err().to_string();
        assert!(e.contains("is also the output of --out"), "{e}");
    }

    #[test]
    fn nothing_is_replaced_before_commit_and_all_after() {
        let d = scratch("commit");
        fs::write(d.join("a"), "old a").unwrap();
        let mut t = Transaction::new();
        t.reserve("--a", s(&d.join("a"))).unwrap();
        t.reserve("--b", s(&d.join("b"))).unwrap();
        t.reserve("--c", s(&d.join("c"))).unwrap();
        t.write(s(&d.join("a")), b"new a").unwrap();
        t.write(s(&d.join("b")), b"new b").unwrap();
        assert_eq!(fs::read(d.join("a")).unwrap(), b"old a");
        assert!(!d.join("b").exists());
        t.commit().unwrap();
        assert_eq!(fs::read(d.join("a")).unwrap(), b"new a");
        assert_eq!(fs::read(d.join("b")).unwrap(), b"new b");
        assert!(
            !d.join("c").exists(),
            "an output never written is not created"
        );
        let left: Vec<_> = fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left.len(), 2, "{left:?}");
    }

    #[test]
    fn a_dropped_transaction_leaves_the_old_files() {
        let d = scratch("drop");
        fs::write(d.join("a"), "old").unwrap();
        {
            let mut t = Transaction::new();
            t.write(s(&d.join("a")), b"new").unwrap();
        }
        assert_eq!(fs::read(d.join("a")).unwrap(), b"old");
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
    }

    #[test]
    fn a_missing_directory_fails_at_reserve_naming_it() {
        let d = scratch("missing");
        let mut t = Transaction::new();
        let p = d.join("no/such/o.json");
        let e = t.reserve("--out", s(&p)).unwrap_err().to_string();
        assert!(
            e.starts_with("--out ") && e.contains("No such file or directory"),
            "{e}"
        );
        assert!(e.contains("no/such"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_written_through_and_fifos_directly() {
        let d = scratch("special");
        fs::write(d.join("real"), "old").unwrap();
        std::os::unix::fs::symlink("real", d.join("link")).unwrap();
        let mut t = Transaction::new();
        t.write(s(&d.join("link")), b"new").unwrap();
        t.write("/dev/null", b"discarded").unwrap();
        t.commit().unwrap();
        assert!(
            fs::symlink_metadata(d.join("link"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(d.join("real")).unwrap(), b"new");
        use std::os::unix::fs::FileTypeExt;
        assert!(
            fs::metadata("/dev/null")
                .unwrap()
                .file_type()
                .is_char_device()
        );
    }

    /// What a killed run leaves is finished by the next one: a complete
    /// journal rolls forward, stray temporaries of dead processes go.
    #[test]
    fn recovery_rolls_a_dead_runs_journal_forward() {
        let d = scratch("recover");
        let dead = 999_999_999; // above any pid_max
        let (a, b) = (d.join("a"), d.join("b"));
        fs::write(&a, "old a").unwrap();
        fs::write(&b, "old b").unwrap();
        let (ta, tb) = (tmp_name(&a, dead, 0), tmp_name(&b, dead, 1));
        fs::write(&ta, "new a").unwrap();
        fs::write(&tb, "new b").unwrap();
        // killed after renaming a, before b
        fs::rename(&ta, &a).unwrap();
        let j = Journal {
            renames: vec![(ta, a.clone()), (tb, b.clone())],
        };
        fs::write(
            d.join(format!("{JOURNAL}{dead}-2")),
            serde_json::to_vec(&j).unwrap(),
        )
        .unwrap();
        fs::write(tmp_name(&d.join("c"), dead, 3), "stray").unwrap();
        recover(&d);
        assert_eq!(fs::read(&a).unwrap(), b"new a");
        assert_eq!(fs::read(&b).unwrap(), b"new b");
        let left: Vec<_> = fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left.len(), 2, "{left:?}");
    }
}
