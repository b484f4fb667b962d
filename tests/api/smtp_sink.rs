//! A real SMTP server for the notices tests (tests/smtp/sink.py: aiosmtpd, Debian's
//! python3-aiosmtpd, or the test tools' virtualenv: see `test_tools`): the messages it
//! accepted, and a switch that makes it refuse them for a while.

use std::io::BufRead;
use std::process::{Child, Command, Stdio};

/// A message the server accepted: its envelope's recipients and its bytes.
#[derive(Debug, Clone)]
pub struct Mail {
    pub to: Vec<String>,
    pub raw: String,
    /// The plain-text part, decoded (by Python's email package, not by this project).
    pub text: String,
}

impl Mail {
    /// The value of header `name` (unfolded), if the message has it.
    pub fn header(&self, name: &str) -> Option<String> {
        let head = self.raw.split("\r\n\r\n").next().unwrap_or_default();
        let unfolded = head.replace("\r\n ", " ").replace("\r\n\t", " ");
        unfolded.lines().find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
        })
    }
}

/// The server's process, stopped on drop.
pub struct Sink {
    pub port: u16,
    dir: tempfile::TempDir,
    child: Child,
}

impl Sink {
    pub fn start() -> Sink {
        let dir = tempfile::tempdir().expect("a folder for the messages");
        let script = format!("{}/tests/smtp/sink.py", env!("CARGO_MANIFEST_DIR"));
        let python =
            crate::test_tools::python_with("aiosmtpd").unwrap_or_else(|line| panic!("{line}"));
        let mut child = Command::new(&python)
            .arg(&script)
            .arg(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {} {script}: {e}", python.display()));
        let mut line = String::new();
        let stdout = child.stdout.take().expect("the server's stdout");
        let read = std::io::BufReader::new(stdout).read_line(&mut line);
        let port = line.trim().parse().unwrap_or_else(|_| {
            let _ = child.kill();
            panic!(
                "the SMTP server did not start ({read:?}, {line:?}): the notices tests need \
                 aiosmtpd (apt-get install python3-aiosmtpd)"
            )
        });
        Sink { port, dir, child }
    }

    /// `smtp://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// Every message accepted so far, in order.
    pub fn messages(&self) -> Vec<Mail> {
        read_messages(self.dir.path())
    }

    /// Every message refused so far (while [`Sink::refuse`] was on), in order.
    pub fn refused(&self) -> Vec<Mail> {
        let folder = self.dir.path().join("refused");
        if !folder.exists() {
            return Vec::new();
        }
        read_messages(&folder)
    }

    /// Holds every message's DATA unanswered while `on` (a relay hanging mid-send); a
    /// message whose client hung up meanwhile is dropped when let go.
    pub fn stall(&self, on: bool) {
        let path = self.dir.path().join("stall");
        if on {
            std::fs::write(path, "").expect("the stall");
        } else {
            let _ = std::fs::remove_file(path);
        }
    }

    /// Whether a message has been held by [`Sink::stall`].
    pub fn stalled(&self) -> bool {
        self.dir.path().join("stalled").exists()
    }

    /// Waits `seconds` before answering each accepted message (a slow relay).
    pub fn delay(&self, seconds: f64) {
        std::fs::write(self.dir.path().join("delay"), seconds.to_string()).expect("the delay");
    }

    /// Refuses every message with `answer` (`None`: accepts again).
    pub fn refuse(&self, answer: Option<&str>) {
        let path = self.dir.path().join("refuse");
        match answer {
            Some(a) => std::fs::write(path, a).expect("the refusal"),
            None => {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

/// The messages kept in `folder` (`NNNN.eml` with its `.txt` and `.rcpt`), in order.
fn read_messages(folder: &std::path::Path) -> Vec<Mail> {
    let mut names: Vec<_> = std::fs::read_dir(folder)
        .expect("the messages' folder")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "eml"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|eml| Mail {
            raw: std::fs::read_to_string(&eml).expect("a message"),
            text: std::fs::read_to_string(eml.with_extension("txt")).expect("its text"),
            to: std::fs::read_to_string(eml.with_extension("rcpt"))
                .expect("its recipients")
                .lines()
                .map(str::to_string)
                .collect(),
        })
        .collect()
}

impl Drop for Sink {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
