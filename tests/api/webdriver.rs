//! A tiny W3C WebDriver client over `reqwest`, enough for the browser tests: it starts
//! `chromedriver` on a free port, opens one headless Chromium session with a fresh profile,
//! and drives it over plain HTTP on localhost. Dropping the [`Browser`] ends the session (so
//! Chromium quits) and kills chromedriver.

#![allow(dead_code)] // A toolkit: not every test uses every call.

use std::fmt;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use actix_web::rt::time::sleep;
use serde_json::{Value, json};

/// The key W3C WebDriver uses for element references.
const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

/// Chromium's arguments: headless, no sandbox (containers), nothing that reaches the network.
const CHROME_ARGS: &[&str] = &[
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
    "--window-size=1280,1024",
];

/// A WebDriver error (`code` is the W3C error code, e.g. `no such element`), or a transport
/// or protocol failure (`code` is `client`).
#[derive(Debug, Clone)]
pub struct Error {
    pub code: String,
    pub message: String,
}

impl Error {
    /// The element is no longer in the page: the page was replaced. Chromium says so with the
    /// W3C codes, or, when asked while the old document is being torn down, with an
    /// "unknown error" whose message says the node "does not belong to the document".
    fn is_gone(&self) -> bool {
        self.code == "stale element reference"
            || self.code == "no such element"
            || (self.code == "unknown error"
                && self.message.contains("does not belong to the document"))
    }

    fn client(message: impl fmt::Display) -> Error {
        Error {
            code: "client".into(),
            message: message.to_string(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "webdriver: {}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

/// Every test that drives a browser, by its name in the test binary. Each one gets its
/// binaries from [`binaries_or_skip`] with that name, which refuses a name missing here, so
/// [`browser_skips_are_reported`] always counts them all.
pub const BROWSER_TESTS: &[&str] = &[
    "browser::calculator_works_in_a_browser",
    "browser_league::a_supervisor_runs_a_match_in_a_browser",
    "browser_league::the_second_supervisor_with_a_stale_page_gets_the_conflict_page",
    "browser_bracket::the_bracket_page_in_a_browser",
    "browser_first_week::a_coordinators_first_week_in_a_browser",
    "browser_captain::a_captains_week_on_a_phone",
    "browser_desk::the_desk_checks_teams_in_with_the_keyboard_on_a_tablet",
    "browser_queue::the_tv_calls_the_next_match_when_a_table_frees",
    "browser_campus::browser_a_supervisor_signs_in_at_the_campus_provider_and_lands_on_tonight",
    "browser_schedule::the_coordinator_moves_a_night_and_postpones_a_match",
    "browser_conduct::a_supervisor_checks_in_forfeits_and_rates_on_a_phone",
    "browser_outbox::a_hand_recorded_offline_is_sent_once_when_back_online",
    "browser_outbox::a_queued_hand_that_meets_a_conflict_waits_for_the_supervisor",
    "browser_outbox::a_log_out_from_any_page_leaves_no_console_on_the_phone",
    "browser_outbox::a_lineup_set_offline_is_sent_once_in_order_with_the_hands",
    "browser_outbox::a_kept_hand_is_sent_the_moment_the_connection_returns",
    "browser_outbox::a_hand_the_server_fails_to_take_is_kept_and_recorded_once_later",
    "browser_outbox::a_refused_entry_is_shown_on_top_with_edit_and_other_matches_still_send",
    "browser_outbox::two_tabs_of_one_match_record_each_hand_once",
    "browser_outbox::another_user_on_the_phone_never_sends_the_first_users_entries",
    "browser_outbox::a_service_worker_update_while_hands_wait_still_sends_each_once",
    "browser_outbox::entries_kept_by_the_first_outbox_are_still_sent_once",
    "browser_outbox::a_hand_answered_404_is_kept_and_shown_never_dropped",
    "browser_outbox::kept_hands_are_answered_their_totals_and_the_page_loads_once",
    "browser_outbox::hands_sent_while_the_next_is_typed_show_at_once_and_the_typing_stays",
    "browser_phone::errors_are_in_view_on_a_phone",
    "browser_phone::the_console_fits_a_phone",
    "browser_phone::a_150_hand_console_loads_on_a_phone_and_takes_the_next_hand",
    "browser_preview::the_hand_form_previews_and_refuses_with_the_engine_on_a_phone",
    "browser_phone::after_a_hand_the_console_opens_at_the_next_form",
    "browser_table::the_tv_shows_24_tables_readably_and_every_result",
    "browser_table::public_pages_fit_a_phone",
    "browser_a11y::every_page_passes_axe",
    "browser_a11y::a_whole_hand_is_entered_with_the_keyboard_alone",
    "browser_a11y::previews_confirmations_and_refusals_pass_axe",
    "browser_live::the_scoreboard_updates_in_place",
    "browser_live::the_match_page_updates_in_place",
    "browser_lineups::a_lineup_swiped_on_a_phone_names_the_seats_of_the_hand_form",
    "browser_print::printed_brackets_keep_every_name_and_fill_the_sheet",
    "hostile_names::the_printed_bracket_keeps_hostile_names_whole",
    "accounts::browser_a_one_time_password_is_changed_then_the_console_opens",
];

/// What to install, for the skip messages.
const INSTALL: &str = "install chromium and chromium-driver (or set CHROMEDRIVER / CHROME_BIN)";

/// Browser tests skipped so far in this run of the test binary.
static SKIPPED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// `CI` set to anything but empty, `0` or `false`.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
}

/// The chromedriver and Chromium for the browser test `test` (a name in [`BROWSER_TESTS`]),
/// or `None` after [`skip`] where they are missing. In CI a missing browser fails the test.
pub fn binaries_or_skip(test: &str) -> Option<(PathBuf, PathBuf)> {
    assert!(
        BROWSER_TESTS.contains(&test),
        "{test} is not in webdriver::BROWSER_TESTS: add it there so its skips are counted"
    );
    // libtest names each test's thread after the test (unless it runs on the main thread).
    if let Some(thread) = std::thread::current().name().filter(|n| *n != "main") {
        assert_eq!(
            thread, test,
            "binaries_or_skip called with another test's name"
        );
    }
    let found = find_binaries();
    if found.is_none() {
        skip(test, "no chromium");
    }
    found
}

/// Says that `test` does nothing on this machine, and counts it: one line `SKIPPED: <test>
/// (<reason>)` written straight to stderr, past the test harness's capture, so it shows
/// among the `ok` lines. With `CI` set it panics instead: in CI a browser test never skips.
pub fn skip(test: &str, reason: &str) {
    assert!(
        !in_ci(),
        "CI is set but {test} would skip ({reason}): {INSTALL}; browser tests never skip in CI"
    );
    let n = SKIPPED.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: {test} ({reason}; {n} of {} browser tests skipped so far; {INSTALL})",
        BROWSER_TESTS.len()
    );
}

/// The count of browser tests that skip on this machine, said once per run (the other skips
/// are one line each, and a skipped test still reads `ok`). Fails in CI without a browser,
/// like the browser tests themselves.
#[test]
fn browser_skips_are_reported() {
    let skipping = if find_binaries().is_some() {
        0
    } else {
        BROWSER_TESTS.len()
    };
    assert!(
        skipping == 0 || !in_ci(),
        "CI is set but chromedriver or chromium is missing: {INSTALL}; the {} browser tests \
         never skip in CI",
        BROWSER_TESTS.len()
    );
    let _ = writeln!(
        std::io::stderr(),
        "browser tests skipped: {skipping} of {}{}",
        BROWSER_TESTS.len(),
        if skipping > 0 {
            format!(" ({INSTALL} to run them)")
        } else {
            String::new()
        }
    );
}

/// Where chromedriver and Chromium are: `$CHROMEDRIVER` / `$CHROME_BIN`, else the PATH,
/// else `/usr/bin`. `None` when either is missing.
pub fn find_binaries() -> Option<(PathBuf, PathBuf)> {
    let driver = locate("CHROMEDRIVER", &["chromedriver"])?;
    let chrome = locate("CHROME_BIN", &["chromium", "chromium-browser"])?;
    Some((driver, chrome))
}

fn locate(var: &str, names: &[&str]) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(var).filter(|v| !v.is_empty()) {
        let path = PathBuf::from(path);
        return is_executable(&path).then_some(path);
    }
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    dirs.push("/usr/bin".into());
    names
        .iter()
        .flat_map(|name| dirs.iter().map(move |dir| dir.join(name)))
        .find(|path| is_executable(path))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// An element of the current page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element(String);

/// chromedriver plus one Chromium session.
pub struct Browser {
    http: reqwest::Client,
    driver: Child,
    port: u16,
    /// `http://127.0.0.1:{port}/session/{id}`
    session: String,
    session_path: String,
    browser_pid: Option<u32>,
    closed: bool,
    // Dropped after Drop: Chromium's profile and chromedriver's log.
    dir: tempfile::TempDir,
    /// One browser test at a time in the test binary: several Chromiums on two cores made
    /// pages slow enough for element lookups to race navigations. Released last.
    _turn: BrowserTurn,
}

static ONE_BROWSER: std::sync::Mutex<()> = std::sync::Mutex::new(());

thread_local! {
    /// Browsers open on this thread (each test runs on its own thread).
    static OPEN_HERE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The turn of one test thread: its first browser waits for it, a second browser of the same
/// test (two supervisors) shares it instead of waiting for itself.
struct BrowserTurn(Option<std::sync::MutexGuard<'static, ()>>);

impl BrowserTurn {
    fn take() -> BrowserTurn {
        let open = OPEN_HERE.with(|n| n.replace(n.get() + 1));
        // A test that failed while holding it poisons it; the next may still run.
        BrowserTurn((open == 0).then(|| ONE_BROWSER.lock().unwrap_or_else(|e| e.into_inner())))
    }
}

impl Drop for BrowserTurn {
    fn drop(&mut self) {
        OPEN_HERE.with(|n| n.set(n.get().saturating_sub(1)));
    }
}

impl Browser {
    /// Starts chromedriver and a headless session.
    pub async fn start(driver: &Path, chrome: &Path) -> Result<Browser> {
        let turn = BrowserTurn::take();
        let dir = tempfile::Builder::new()
            .prefix("spades-im-browser-")
            .tempdir()
            .map_err(Error::client)?;
        let profile = dir.path().join("profile");
        std::fs::create_dir(&profile).map_err(Error::client)?;
        let http = reqwest::Client::builder()
            .no_proxy()
            .timeout(Duration::from_secs(60))
            .build()
            .map_err(Error::client)?;

        // A free port can be taken between asking and chromedriver binding it: try again.
        let mut last_error = None;
        for _ in 0..3 {
            let port = free_port()?;
            let log = std::fs::File::create(dir.path().join("chromedriver.log"))
                .map_err(Error::client)?;
            let mut child = Command::new(driver)
                .arg(format!("--port={port}"))
                .stdin(Stdio::null())
                .stdout(log.try_clone().map_err(Error::client)?)
                .stderr(log)
                .spawn()
                .map_err(|e| Error::client(format!("cannot start {}: {e}", driver.display())))?;
            match wait_ready(&http, port, &mut child).await {
                Ok(()) => {
                    let mut browser = Browser {
                        http,
                        driver: child,
                        port,
                        session: String::new(),
                        session_path: String::new(),
                        browser_pid: None,
                        closed: true,
                        dir,
                        _turn: turn,
                    };
                    browser
                        .new_session(chrome, &profile)
                        .await
                        .map_err(|e| browser.with_log(e))?;
                    return Ok(browser);
                }
                Err(e) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    last_error = Some(e);
                }
            }
        }
        let log = std::fs::read_to_string(dir.path().join("chromedriver.log")).unwrap_or_default();
        let e = last_error.unwrap_or_else(|| Error::client("chromedriver did not start"));
        Err(Error {
            message: format!("{}\nchromedriver log:\n{log}", e.message),
            ..e
        })
    }

    fn with_log(&self, e: Error) -> Error {
        let log =
            std::fs::read_to_string(self.dir.path().join("chromedriver.log")).unwrap_or_default();
        Error {
            message: format!("{}\nchromedriver log:\n{log}", e.message),
            ..e
        }
    }

    async fn new_session(&mut self, chrome: &Path, profile: &Path) -> Result<()> {
        let mut args: Vec<String> = CHROME_ARGS.iter().map(|a| a.to_string()).collect();
        args.push(format!("--user-data-dir={}", profile.display()));
        let body = json!({
            "capabilities": {
                "alwaysMatch": {
                    "browserName": "chrome",
                    "pageLoadStrategy": "normal",
                    "goog:chromeOptions": {
                        "binary": chrome.to_string_lossy(),
                        "args": args,
                    },
                }
            }
        });
        let url = format!("http://127.0.0.1:{}/session", self.port);
        let value = send(self.http.post(url).json(&body)).await?;
        let id = value["sessionId"]
            .as_str()
            .ok_or_else(|| Error::client(format!("no sessionId in {value}")))?;
        self.session_path = format!("/session/{id}");
        self.session = format!("http://127.0.0.1:{}{}", self.port, self.session_path);
        self.browser_pid = value["capabilities"]["goog:processID"]
            .as_u64()
            .and_then(|p| u32::try_from(p).ok());
        self.closed = false;
        self.post(
            "/timeouts",
            json!({"implicit": 0, "pageLoad": 30_000, "script": 10_000}),
        )
        .await?;
        Ok(())
    }

    async fn get(&self, path: &str) -> Result<Value> {
        send(self.http.get(format!("{}{path}", self.session))).await
    }

    async fn post(&self, path: &str, body: Value) -> Result<Value> {
        send(
            self.http
                .post(format!("{}{path}", self.session))
                .json(&body),
        )
        .await
    }

    /// Loads `url` and waits for its load event.
    pub async fn goto(&self, url: &str) -> Result<()> {
        self.post("/url", json!({ "url": url })).await.map(drop)
    }

    pub async fn current_url(&self) -> Result<String> {
        let value = self.get("/url").await?;
        value
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| Error::client(format!("url is {value}")))
    }

    /// The first element matching a CSS selector (`no such element` when there is none).
    pub async fn find(&self, css: &str) -> Result<Element> {
        let value = self
            .post("/element", json!({"using": "css selector", "value": css}))
            .await?;
        element(&value)
    }

    /// Every element matching a CSS selector, in document order.
    pub async fn find_all(&self, css: &str) -> Result<Vec<Element>> {
        let value = self
            .post("/elements", json!({"using": "css selector", "value": css}))
            .await?;
        elements(&value)
    }

    /// Every element matching a CSS selector inside `parent`.
    pub async fn find_all_in(&self, parent: &Element, css: &str) -> Result<Vec<Element>> {
        let value = self
            .post(
                &format!("/element/{}/elements", parent.0),
                json!({"using": "css selector", "value": css}),
            )
            .await?;
        elements(&value)
    }

    /// Whether an element matches the selector now.
    pub async fn exists(&self, css: &str) -> Result<bool> {
        Ok(!self.find_all(css).await?.is_empty())
    }

    /// Waits up to `timeout` for an element matching `css` to appear.
    pub async fn wait_for(&self, css: &str, timeout: Duration) -> Result<Element> {
        let deadline = Instant::now() + timeout;
        loop {
            match self.find(css).await {
                Ok(element) => return Ok(element),
                Err(e) if e.code == "no such element" && Instant::now() < deadline => {
                    sleep(Duration::from_millis(50)).await;
                }
                Err(e) if e.code == "no such element" => {
                    return Err(Error {
                        message: format!("no \"{css}\" after {timeout:?}"),
                        ..e
                    });
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Clicks `element` and waits until a new page replaces the current one and has loaded
    /// (a form submission, a link).
    pub async fn click_and_wait_for_page(
        &self,
        element: &Element,
        timeout: Duration,
    ) -> Result<()> {
        let old_root = self.find("html").await?;
        self.click(element).await?;
        let deadline = Instant::now() + timeout;
        loop {
            match self.property(&old_root, "nodeName").await {
                Err(e) if e.is_gone() => break,
                Err(e) => return Err(e),
                Ok(_) if Instant::now() < deadline => sleep(Duration::from_millis(50)).await,
                Ok(_) => return Err(Error::client(format!("no new page after {timeout:?}"))),
            }
        }
        loop {
            let state = self
                .execute("return document.readyState", json!([]))
                .await?;
            if state == "complete" {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(Error::client(format!(
                    "page still \"{state}\" after {timeout:?}"
                )));
            }
            sleep(Duration::from_millis(50)).await;
        }
    }

    pub async fn click(&self, element: &Element) -> Result<()> {
        self.post(&format!("/element/{}/click", element.0), json!({}))
            .await
            .map(drop)
    }

    /// Empties an input.
    pub async fn clear(&self, element: &Element) -> Result<()> {
        self.post(&format!("/element/{}/clear", element.0), json!({}))
            .await
            .map(drop)
    }

    /// Types `text` into an element (focusing it first).
    pub async fn send_keys(&self, element: &Element, text: &str) -> Result<()> {
        self.post(
            &format!("/element/{}/value", element.0),
            json!({ "text": text }),
        )
        .await
        .map(drop)
    }

    /// Selects the `<option>` of `select_css` whose value is `value`, by clicking it.
    pub async fn select_by_value(&self, select_css: &str, value: &str) -> Result<()> {
        let quoted = value.replace('\\', "\\\\").replace('"', "\\\"");
        let option = self
            .find(&format!("{select_css} option[value=\"{quoted}\"]"))
            .await?;
        self.click(&option).await?;
        let selected = self.value_of(select_css).await?;
        if selected == value {
            Ok(())
        } else {
            Err(Error::client(format!(
                "{select_css} shows \"{selected}\" after clicking the option \"{value}\""
            )))
        }
    }

    /// An element's rendered text (as a user sees it: `<br>` is a line break).
    pub async fn text(&self, element: &Element) -> Result<String> {
        let value = self.get(&format!("/element/{}/text", element.0)).await?;
        Ok(value.as_str().unwrap_or_default().to_string())
    }

    /// The text of the first element matching `css`.
    pub async fn text_of(&self, css: &str) -> Result<String> {
        let element = self.find(css).await?;
        self.text(&element).await
    }

    /// An HTML attribute as written in the page (`None` when absent).
    pub async fn attribute(&self, element: &Element, name: &str) -> Result<Option<String>> {
        let value = self
            .get(&format!("/element/{}/attribute/{name}", element.0))
            .await?;
        Ok(value.as_str().map(str::to_string))
    }

    /// A DOM property (`value` of an input or select, `checked` of a checkbox) as JSON.
    pub async fn property_json(&self, element: &Element, name: &str) -> Result<Value> {
        self.get(&format!("/element/{}/property/{name}", element.0))
            .await
    }

    /// A DOM property as text (`""` for null; booleans and numbers as JSON).
    pub async fn property(&self, element: &Element, name: &str) -> Result<String> {
        Ok(match self.property_json(element, name).await? {
            Value::Null => String::new(),
            Value::String(s) => s,
            other => other.to_string(),
        })
    }

    /// The current `value` of the first element matching `css`.
    pub async fn value_of(&self, css: &str) -> Result<String> {
        let element = self.find(css).await?;
        self.property(&element, "value").await
    }

    /// Runs a script in the page (`arguments[i]` are `args`) and returns what it returns.
    pub async fn execute(&self, script: &str, args: Value) -> Result<Value> {
        self.post("/execute/sync", json!({ "script": script, "args": args }))
            .await
    }

    /// The page's current markup.
    pub async fn source(&self) -> Result<String> {
        let value = self.get("/source").await?;
        Ok(value.as_str().unwrap_or_default().to_string())
    }

    /// Saves a PNG of the viewport (for debugging a failure).
    pub async fn screenshot(&self, path: &Path) -> Result<()> {
        let value = self.get("/screenshot").await?;
        let data = value
            .as_str()
            .ok_or_else(|| Error::client("the screenshot is not a string"))?;
        let png =
            base64_decode(data).ok_or_else(|| Error::client("the screenshot is not base64"))?;
        std::fs::write(path, png).map_err(Error::client)
    }

    /// The id of the element that has focus (empty when none has one).
    pub async fn active_id(&self) -> Result<String> {
        let value = self
            .execute(
                "return document.activeElement ? document.activeElement.id : '';",
                json!([]),
            )
            .await?;
        Ok(value.as_str().unwrap_or_default().to_string())
    }

    /// Presses and releases each key of `keys` in turn on the keyboard (W3C actions; Tab is
    /// `\u{E004}`, Enter `\u{E007}`): it goes to whatever has focus, as a real keyboard's.
    pub async fn press_keys(&self, keys: &str) -> Result<()> {
        let actions: Vec<Value> = keys
            .chars()
            .flat_map(|c| {
                [
                    json!({"type": "keyDown", "value": c.to_string()}),
                    json!({"type": "keyUp", "value": c.to_string()}),
                ]
            })
            .collect();
        self.post(
            "/actions",
            json!({"actions": [{"type": "key", "id": "keyboard", "actions": actions}]}),
        )
        .await
        .map(drop)
    }

    /// Runs axe-core (vendored in `tests/fixtures/axe-core`, version in its header) over the
    /// current page against the WCAG 2.0/2.1 A and AA rules, WCAG 2.2 AA (target size 24 px)
    /// and best practices, and returns
    /// one line per violation: impact, rule, and the selectors of the nodes that fail it,
    /// with axe's summary of the first. Empty when the page passes.
    pub async fn axe_violations(&self) -> Result<Vec<String>> {
        const AXE: &str = include_str!("../fixtures/axe-core/axe.min.js");
        let loaded = self
            .execute("return typeof window.axe === 'object';", json!([]))
            .await?;
        if loaded != Value::Bool(true) {
            self.execute(&format!("{AXE}\nreturn true;"), json!([]))
                .await?;
        }
        let found = self
            .execute(
                "return axe.run(document, {resultTypes: ['violations'], runOnly: {type: 'tag', \
                 values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']}}) \
                 .then(function (r) { return r.violations.map(function (v) { \
                   return (v.impact || 'none') + ' ' + v.id + ': ' + v.nodes.map(function (n) { \
                     return n.target.join(' '); }).join(', ') + ' (' + \
                     (v.nodes[0] ? v.nodes[0].failureSummary : '').replace(/\\s+/g, ' ') + ')'; \
                 }); });",
                json!([]),
            )
            .await?;
        Ok(found
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Prints the current page to PDF (`POST /session/{id}/print`; `options` as W3C
    /// WebDriver's print parameters, e.g. `{"orientation": "landscape"}`); the PDF's bytes.
    pub async fn print_pdf(&self, options: Value) -> Result<Vec<u8>> {
        let value = self.post("/print", options).await?;
        let data = value
            .as_str()
            .ok_or_else(|| Error::client("the PDF is not a string"))?;
        base64_decode(data).ok_or_else(|| Error::client("the PDF is not base64"))
    }

    /// Shows the page as printed (Chromium's DevTools `Emulation.setEmulatedMedia` through
    /// chromedriver's `goog/cdp/execute`), or as on screen again with `print: false`.
    pub async fn emulate_print(&self, print: bool) -> Result<()> {
        self.post(
            "/goog/cdp/execute",
            json!({"cmd": "Emulation.setEmulatedMedia",
                   "params": {"media": if print { "print" } else { "" }}}),
        )
        .await
        .map(drop)
    }

    /// Resizes the browser window (`POST /session/{id}/window/rect`), in CSS pixels.
    pub async fn set_window_size(&self, width: u32, height: u32) -> Result<()> {
        self.post("/window/rect", json!({"width": width, "height": height}))
            .await
            .map(drop)
    }

    /// Reloads the current page (`POST /session/{id}/refresh`) and waits for its load event.
    pub async fn refresh(&self) -> Result<()> {
        self.post("/refresh", json!({})).await.map(drop)
    }

    /// Chromium's network emulation for the page (chromedriver's
    /// `POST /session/{id}/chromium/network_conditions`): `offline` makes the page's requests
    /// fail and `navigator.onLine` false, with the `offline` event. It is DevTools emulation
    /// of the page's target only: a service worker's own fetches are not cut by it.
    pub async fn set_offline(&self, offline: bool) -> Result<()> {
        self.post(
            "/chromium/network_conditions",
            json!({"network_conditions": {
                "offline": offline, "latency": 0,
                "download_throughput": -1, "upload_throughput": -1,
            }}),
        )
        .await
        .map(drop)
    }

    /// Ends the network emulation (`DELETE /session/{id}/chromium/network_conditions`): the
    /// page is online again and gets the `online` event.
    pub async fn clear_network_conditions(&self) -> Result<()> {
        send(
            self.http
                .delete(format!("{}/chromium/network_conditions", self.session)),
        )
        .await
        .map(drop)
    }

    /// Opens a new tab (`POST /session/{id}/window/new`) and returns its handle; the session
    /// stays on the current tab until [`Browser::switch_to`].
    pub async fn new_tab(&self) -> Result<String> {
        let value = self.post("/window/new", json!({"type": "tab"})).await?;
        Ok(value["handle"].as_str().unwrap_or_default().to_string())
    }

    /// The handle of the current tab (`GET /session/{id}/window`).
    pub async fn tab(&self) -> Result<String> {
        Ok(self
            .get("/window")
            .await?
            .as_str()
            .unwrap_or_default()
            .to_string())
    }

    /// Makes the tab `handle` the one commands go to (`POST /session/{id}/window`).
    pub async fn switch_to(&self, handle: &str) -> Result<()> {
        self.post("/window", json!({"handle": handle}))
            .await
            .map(drop)
    }

    /// Deletes every cookie of the current page's site (`DELETE /session/{id}/cookie`): the
    /// session ends on the phone as when it expires.
    pub async fn delete_cookies(&self) -> Result<()> {
        send(self.http.delete(format!("{}/cookie", self.session)))
            .await
            .map(drop)
    }

    /// The text of the dialog (`alert`, `confirm`) the page has open, if any
    /// (`GET /session/{id}/alert/text`).
    pub async fn dialog_text(&self) -> Result<Option<String>> {
        match self.get("/alert/text").await {
            Ok(value) => Ok(Some(value.as_str().unwrap_or_default().to_string())),
            Err(e) if e.code == "no such alert" => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Answers the open dialog with OK (`accept`) or Cancel.
    pub async fn answer_dialog(&self, accept: bool) -> Result<()> {
        let path = if accept {
            "/alert/accept"
        } else {
            "/alert/dismiss"
        };
        self.post(path, json!({})).await.map(drop)
    }

    /// Ends the session (Chromium quits) and stops chromedriver.
    pub async fn quit(mut self) -> Result<()> {
        let result = if self.closed {
            Ok(())
        } else {
            self.closed = true;
            send(self.http.delete(&self.session)).await.map(drop)
        };
        // Drop stops chromedriver.
        if result.is_err() {
            self.closed = false;
        }
        result
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.closed {
            // Blocking on purpose: Drop cannot await, and Chromium must not outlive the test.
            let ended = delete_blocking(self.port, &self.session_path).is_ok();
            if !ended && let Some(pid) = self.browser_pid {
                kill_browser(pid);
            }
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// `DELETE /session/{id}` over a bare socket.
fn delete_blocking(port: u16, path: &str) -> std::io::Result<()> {
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let mut stream = TcpStream::connect_timeout(&address, Duration::from_secs(2))?;
    stream.set_read_timeout(Some(Duration::from_secs(20)))?;
    write!(
        stream,
        "DELETE {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )?;
    // chromedriver answers once Chromium has quit; it may keep the connection open, so read
    // the status line and headers only.
    let mut response = Vec::new();
    let mut chunk = [0u8; 1024];
    while !response.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        response.extend_from_slice(&chunk[..n]);
    }
    if response.starts_with(b"HTTP/1.1 200") {
        Ok(())
    } else {
        Err(std::io::Error::other("the session did not end"))
    }
}

/// The last resort when the session could not be ended: kill the browser chromedriver
/// started for us, by its id, if that id still names a Chromium.
fn kill_browser(pid: u32) {
    let is_chromium = std::fs::read(format!("/proc/{pid}/cmdline"))
        .is_ok_and(|cmd| String::from_utf8_lossy(&cmd).contains("chrom"));
    if is_chromium {
        let _ = Command::new("kill")
            .arg(pid.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

fn free_port() -> Result<u16> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(Error::client)?;
    Ok(listener.local_addr().map_err(Error::client)?.port())
}

/// Polls chromedriver's `/status` until it is ready (or has exited).
async fn wait_ready(http: &reqwest::Client, port: u16, child: &mut Child) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(Error::client(format!("chromedriver exited ({status})")));
        }
        let ready = http
            .get(format!("http://127.0.0.1:{port}/status"))
            .timeout(Duration::from_secs(2))
            .send()
            .await;
        if let Ok(response) = ready
            && let Ok(body) = response.json::<Value>().await
            && body["value"]["ready"] == true
        {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(Error::client("chromedriver was not ready after 20s"));
        }
        sleep(Duration::from_millis(50)).await;
    }
}

/// Sends a request and unwraps WebDriver's `{"value": ...}`, turning an error value into
/// [`Error`].
async fn send(request: reqwest::RequestBuilder) -> Result<Value> {
    let response = request.send().await.map_err(Error::client)?;
    let status = response.status();
    let body: Value = response
        .json()
        .await
        .map_err(|e| Error::client(format!("HTTP {status}: the answer is not JSON: {e}")))?;
    let value = body.get("value").cloned().unwrap_or(Value::Null);
    if let Some(code) = value.get("error").and_then(Value::as_str) {
        return Err(Error {
            code: code.to_string(),
            message: value["message"].as_str().unwrap_or_default().to_string(),
        });
    }
    if !status.is_success() {
        return Err(Error::client(format!("HTTP {status}: {body}")));
    }
    Ok(value)
}

fn element(value: &Value) -> Result<Element> {
    value[ELEMENT_KEY]
        .as_str()
        .map(|id| Element(id.to_string()))
        .ok_or_else(|| Error::client(format!("not an element: {value}")))
}

fn elements(value: &Value) -> Result<Vec<Element>> {
    value
        .as_array()
        .ok_or_else(|| Error::client(format!("not a list: {value}")))?
        .iter()
        .map(element)
        .collect()
}

/// Standard base64 (with padding), as WebDriver sends screenshots.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    fn sextet(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }
    let bytes: Vec<u8> = text.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    let data = bytes
        .strip_suffix(b"==")
        .or_else(|| bytes.strip_suffix(b"="))
        .unwrap_or(&bytes);
    let mut out = Vec::with_capacity(data.len() * 3 / 4);
    for chunk in data.chunks(4) {
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            n |= sextet(*c)? << (18 - 6 * i);
        }
        let len = match chunk.len() {
            4 => 3,
            3 => 2,
            2 => 1,
            _ => return None,
        };
        out.extend_from_slice(&n.to_be_bytes()[1..=len]);
    }
    Some(out)
}

#[test]
fn base64_round_trip() {
    assert_eq!(base64_decode("aGVsbG8=").unwrap(), b"hello");
    assert_eq!(base64_decode("aGVsbG8h").unwrap(), b"hello!");
    assert_eq!(base64_decode("aGk=").unwrap(), b"hi");
    assert_eq!(base64_decode("YQ==").unwrap(), b"a");
    assert!(base64_decode("a!==").is_none());
}
