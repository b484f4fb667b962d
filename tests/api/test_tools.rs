//! What some tests run besides the server, fetched from the registries on the first run when
//! the machine lacks it, so `cargo test` passes on a fresh clone:
//!
//! - the Python modules of the SMTP sink (`aiosmtpd`), of the metrics parser
//!   (`prometheus_client`) and of the OpenAPI validator (`openapi_spec_validator`): the
//!   system's python3 when it has one (Debian's python3-aiosmtpd and
//!   python3-prometheus-client), else a virtualenv under `target/tmp/test-tools/python` with
//!   all three installed by pip from PyPI;
//! - the devDependencies of package.json (the OpenID provider of the campus sign-in tests,
//!   the client generator of the OpenAPI tests): `npm ci` into the clone when one of them
//!   is missing from `node_modules`.
//!
//! Each is fetched once: a `OnceLock` within this test binary, a file lock across processes
//! (two `cargo test` at once). When it cannot be fetched (no network, no npm, no `venv`), one
//! line on standard error says why and what to install, and the tests that need it fail.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

/// The Python the tools run on when it has them: Debian's, whatever else is first on the PATH.
const SYSTEM_PYTHON: &str = "/usr/bin/python3";

/// What the virtualenv holds, pinned; a change makes the next run build it afresh.
const PYTHON_TOOLS: &[&str] = &[
    "aiosmtpd==1.4.6",
    "prometheus-client==0.26.0",
    "openapi-spec-validator==0.9.0",
];

/// A python3 that imports `module`: the system's if it can, else the test tools' virtualenv
/// (made on the first call). `Err` is the one line already printed.
pub fn python_with(module: &str) -> Result<PathBuf, String> {
    let system = Path::new(SYSTEM_PYTHON);
    if imports(system, module) {
        return Ok(system.to_path_buf());
    }
    static VENV: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    VENV.get_or_init(|| reported(python_tools())).clone()
}

/// `node_modules/` of the clone with every devDependency of package.json in it (`npm ci` on
/// the first call when one is missing). `Err` is the one line already printed.
pub fn node_modules() -> Result<PathBuf, String> {
    static INSTALLED: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    INSTALLED.get_or_init(|| reported(npm_ci())).clone()
}

fn imports(python: &Path, module: &str) -> bool {
    Command::new(python)
        .args(["-c", &format!("import {module}")])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Prints the failure's line once, where the person running `cargo test` sees it.
fn reported(result: Result<PathBuf, String>) -> Result<PathBuf, String> {
    if let Err(line) = &result {
        eprintln!("{line}");
    }
    result
}

/// Holds `target/tmp/test-tools/{name}.lock` while `work` runs: one process fetches at a time.
fn locked<T>(name: &str, work: impl FnOnce() -> T) -> T {
    let dir = tools_dir();
    std::fs::create_dir_all(&dir).expect("target/tmp/test-tools");
    let lock = File::create(dir.join(format!("{name}.lock"))).expect("a lock file");
    lock.lock().expect("the test tools' lock");
    work()
}

fn tools_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("test-tools")
}

fn python_tools() -> Result<PathBuf, String> {
    let venv = tools_dir().join("python");
    let python = venv.join("bin").join("python3");
    // Written last: a virtualenv without it is a run that stopped half-way.
    let ready = venv.join("installed.txt");
    let wanted = PYTHON_TOOLS.join("\n");
    locked("python", || {
        if std::fs::read_to_string(&ready).is_ok_and(|had| had == wanted) {
            return Ok(python.clone());
        }
        let fail = |what: &str, why: String| {
            format!(
                "test tools: {what} failed ({why}); the notices and metrics tests need \
                 `apt-get install python3-aiosmtpd python3-prometheus-client`, or python3-venv \
                 and PyPI within reach to install {} into {}",
                PYTHON_TOOLS.join(" "),
                venv.display()
            )
        };
        let _ = std::fs::remove_dir_all(&venv);
        let base = if Path::new(SYSTEM_PYTHON).exists() {
            SYSTEM_PYTHON
        } else {
            "python3"
        };
        eprintln!(
            "test tools: installing {} into {} (once)",
            PYTHON_TOOLS.join(" "),
            venv.display()
        );
        run(Command::new(base).arg("-m").arg("venv").arg(&venv))
            .map_err(|why| fail(&format!("{base} -m venv"), why))?;
        let pip = [
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ];
        run(Command::new(&python).args(pip).args(PYTHON_TOOLS))
            .map_err(|why| fail("pip install", why))?;
        std::fs::write(&ready, &wanted).map_err(|e| fail("writing the marker", e.to_string()))?;
        Ok(python.clone())
    })
}

fn npm_ci() -> Result<PathBuf, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let modules = root.join("node_modules");
    let installed = || {
        dev_dependencies(root)
            .iter()
            .all(|name| modules.join(name).join("package.json").exists())
    };
    if installed() {
        return Ok(modules);
    }
    locked("npm", || {
        if installed() {
            return Ok(modules.clone());
        }
        eprintln!("test tools: npm ci in {} (once)", root.display());
        run(Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(root))
        .map_err(|why| {
            format!(
                "test tools: npm ci failed ({why}); the campus sign-in and OpenAPI client tests \
                 need the devDependencies of package.json: Node.js 18+ with npm (apt-get \
                 install nodejs npm) and the npm registry within reach, or `npm ci` run in {}",
                root.display()
            )
        })?;
        Ok(modules.clone())
    })
}

/// The names of package.json's devDependencies (none when it cannot be read: `npm ci` says
/// why).
fn dev_dependencies(root: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(root.join("package.json")).unwrap_or_default();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    json["devDependencies"]
        .as_object()
        .map(|deps| deps.keys().cloned().collect())
        .unwrap_or_default()
}

/// Runs `command` to its end; `Err` is why it failed, with the last line it wrote.
fn run(command: &mut Command) -> Result<(), String> {
    let output: Output = command
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {:?}: {e}", command.get_program()))?;
    if output.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&output.stderr);
    let last = said.lines().rev().find(|l| !l.trim().is_empty());
    Err(format!(
        "{}: {}",
        output.status,
        last.unwrap_or("no message")
    ))
}
