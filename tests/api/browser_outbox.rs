//! The console's outbox in headless Chromium (`static/outbox/`, `static/sw.js`): hands
//! typed while the table's Wi-Fi is down are kept on the phone, survive a reload, and are
//! recorded exactly once when the connection returns; a queued hand that meets a change
//! made meanwhile by another supervisor waits for the supervisor's decision.
//!
//! How "offline" is made. Chromium's network emulation (chromedriver's
//! `chromium/network_conditions`) applies to the page only: it fails the page's fetches and
//! gives it `navigator.onLine == false` and the `offline`/`online` events, but a service
//! worker's own fetches still reach the server (checked in this Chromium: the worker fetched
//! and stored a page while the page was "offline"). So the browser talks to the app through
//! a [`Relay`], a small TCP relay in the test that is cut like the Wi-Fi (open connections
//! closed, new ones closed at once), for the page and the worker alike; and the page is told
//! it is offline by the emulation at the same time, as a phone is. Nothing is dispatched by
//! hand: the `online` event is Chromium's own when the emulation ends. The relay can also
//! swallow the app's answers (the request reaches the app, the answer never comes back), the
//! case the idempotency key exists for. The app's `/metrics` says what the outbox asked of it
//! (a hand answered its totals, the console page loaded once after a queue is sent).

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::rt::time::sleep;
use anyhow::{Context, bail, ensure};
use serde_json::{Value, json};
use spades_im::service::Role;

use crate::browser::with_browser;
use crate::helpers::{Api, PASSWORD, TestApp, spawn_app};
use crate::webdriver::Browser;

const WAIT: Duration = Duration::from_secs(30);
const WHOLE_TEST: Duration = Duration::from_secs(240);

// ------------------------------------------------------------------------------- relay

/// A TCP relay between the browser and the app, that the test cuts like a table's Wi-Fi.
pub(crate) struct Relay {
    port: u16,
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    online: AtomicBool,
    /// Requests reach the app, its answers are thrown away (the connection is closed).
    swallow: AtomicBool,
    stop: AtomicBool,
    open: Mutex<Vec<TcpStream>>,
    /// Connections refused while cut.
    refused: AtomicUsize,
    /// Answers thrown away while swallowing.
    swallowed: AtomicUsize,
    /// When not 0: the relay answers every request itself with this status (the app is
    /// not asked), as a failing or busy server would.
    fail_with: AtomicU16,
    /// Requests answered so with a failure.
    failed: AtomicUsize,
}

impl Relay {
    fn start(upstream: SocketAddr) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").expect("the relay binds");
        let port = listener.local_addr().expect("the relay's port").port();
        let shared = Arc::new(Shared::default());
        shared.online.store(true, Ordering::SeqCst);
        let s = shared.clone();
        std::thread::spawn(move || {
            for client in listener.incoming() {
                if s.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(client) = client else { continue };
                if s.fail_with.load(Ordering::SeqCst) != 0 {
                    let s = s.clone();
                    std::thread::spawn(move || answer_with(client, upstream, &s));
                    continue;
                }
                if !s.online.load(Ordering::SeqCst) {
                    s.refused.fetch_add(1, Ordering::SeqCst);
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                }
                let Ok(server) = TcpStream::connect(upstream) else {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                };
                if let (Ok(c), Ok(sv)) = (client.try_clone(), server.try_clone()) {
                    let mut open = s.open.lock().unwrap();
                    open.push(c);
                    open.push(sv);
                }
                pipe(&client, &server, None);
                pipe(&server, &client, Some(s.clone()));
            }
        });
        Relay { port, shared }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// No connection: every open one is closed, new ones are closed at once.
    fn cut(&self) {
        self.shared.online.store(false, Ordering::SeqCst);
        self.close_all();
    }

    fn restore(&self) {
        self.shared.swallow.store(false, Ordering::SeqCst);
        self.shared.online.store(true, Ordering::SeqCst);
    }

    /// Requests get through, answers do not (from the next connection on).
    fn swallow_answers(&self) {
        self.shared.swallow.store(true, Ordering::SeqCst);
        self.close_all();
    }

    fn close_all(&self) {
        for s in self.shared.open.lock().unwrap().drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }

    /// Every request is answered with `status` by the relay (0: passed to the app again).
    fn fail_with(&self, status: u16) {
        self.shared.fail_with.store(status, Ordering::SeqCst);
        self.close_all();
    }

    fn failed(&self) -> usize {
        self.shared.failed.load(Ordering::SeqCst)
    }

    fn refused(&self) -> usize {
        self.shared.refused.load(Ordering::SeqCst)
    }

    fn swallowed(&self) -> usize {
        self.shared.swallowed.load(Ordering::SeqCst)
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.cut();
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// Reads one request (its head and its `Content-Length` body) from `client` and answers it
/// with the failing status and an empty body, as a failing server would; if the relay
/// passes requests again by then (a connection the browser opened ahead and used later),
/// the request goes to the app.
fn answer_with(mut client: TcpStream, upstream: SocketAddr, shared: &Arc<Shared>) {
    let _ = client.set_read_timeout(Some(Duration::from_secs(5)));
    let mut request = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    let complete = |r: &[u8]| {
        let text = String::from_utf8_lossy(r);
        let Some(end) = text.find("\r\n\r\n") else {
            return false;
        };
        let length = text[..end]
            .lines()
            .find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse::<usize>().ok())?
            })
            .unwrap_or(0);
        r.len() >= end + 4 + length
    };
    while !complete(&request) {
        match client.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => request.extend_from_slice(&buf[..n]),
        }
    }
    let status = shared.fail_with.load(Ordering::SeqCst);
    if status == 0 {
        let _ = client.set_read_timeout(None);
        if let Ok(mut server) = TcpStream::connect(upstream)
            && server.write_all(&request).is_ok()
        {
            pipe(&client, &server, None);
            pipe(&server, &client, Some(shared.clone()));
        }
        return;
    }
    shared.failed.fetch_add(1, Ordering::SeqCst);
    let answer = format!(
        "HTTP/1.1 {status} Failing\r\nContent-Type: text/html\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    );
    let _ = client.write_all(answer.as_bytes());
    let _ = client.shutdown(Shutdown::Both);
}

/// Copies `from` to `to` on a thread until either side closes; on the answers' side
/// (`answers` given) throws them away while the relay swallows.
fn pipe(from: &TcpStream, to: &TcpStream, answers: Option<Arc<Shared>>) {
    let (Ok(mut from), Ok(mut to)) = (from.try_clone(), to.try_clone()) else {
        return;
    };
    std::thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        loop {
            match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if let Some(s) = &answers
                        && s.swallow.load(Ordering::SeqCst)
                    {
                        s.swallowed.fetch_add(1, Ordering::SeqCst);
                        let _ = to.shutdown(Shutdown::Both);
                        break;
                    }
                    if to.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
            }
        }
        let _ = to.shutdown(Shutdown::Write);
        let _ = from.shutdown(Shutdown::Read);
    });
}

// ------------------------------------------------------------------------------- helpers

/// A league with 4 teams, a round robin, supervisor `sam` assigned and the first match
/// started; the admin's API client and the match's id.
async fn league_night(app: &TestApp) -> (Api, i64) {
    let (admin, ids) = league_night_of(app, 1).await;
    (admin, ids[0])
}

/// As [`league_night`], with the first `started` matches of the schedule started: their ids.
async fn league_night_of(app: &TestApp, started: usize) -> (Api, Vec<i64>) {
    let admin = app.api_user("coord", Role::Admin).await;
    app.league(&admin, "fall", json!("unc-im-300"), 4).await;
    app.user("sam", Role::Supervisor).await;
    let response = admin
        .post(
            "/api/v1/leagues/fall/supervisors",
            &json!({"username": "sam"}),
        )
        .await;
    assert_eq!(response.status(), 204);
    let schedule: Value = admin
        .post(
            "/api/v1/leagues/fall/schedule",
            &json!({"format": "round_robin"}),
        )
        .await
        .json()
        .await
        .expect("schedule json");
    let mut ids = Vec::new();
    for n in 0..started {
        let id = schedule["matches"][n]["id"].as_i64().expect("a match");
        let response = admin
            .post(&format!("/api/v1/matches/{id}/start"), &json!({}))
            .await;
        assert_eq!(response.status(), 200);
        ids.push(id);
    }
    (admin, ids)
}

pub(crate) fn relay_for(app: &TestApp) -> Relay {
    let upstream: SocketAddr = app
        .address
        .trim_start_matches("http://")
        .parse()
        .expect("the app's address");
    Relay::start(upstream)
}

/// Logs `name` in through the relay and opens the console of match `id`, once its service
/// worker keeps the page (so that a reload offline can show it).
pub(crate) async fn open_console(
    browser: &Browser,
    relay: &Relay,
    name: &str,
    id: i64,
) -> anyhow::Result<()> {
    browser.goto(&relay.url("/login")).await?;
    let user = browser.wait_for("#username", WAIT).await?;
    browser.send_keys(&user, name).await?;
    let password = browser.find("#password").await?;
    browser.send_keys(&password, PASSWORD).await?;
    let button = browser.find("#login-button").await?;
    browser.click_and_wait_for_page(&button, WAIT).await?;
    browser
        .goto(&relay.url(&format!("/supervise/matches/{id}")))
        .await?;
    browser.wait_for("#hand-form", WAIT).await?;
    browser
        .wait_for("html[data-outbox-offline=\"ready\"]", WAIT)
        .await
        .context("the service worker keeps the console")?;
    Ok(())
}

/// The table's Wi-Fi drops: the relay is cut and the page is told it is offline.
pub(crate) async fn go_offline(browser: &Browser, relay: &Relay) -> anyhow::Result<()> {
    relay.cut();
    browser.set_offline(true).await?;
    Ok(())
}

/// The Wi-Fi is back: the relay passes again, then Chromium's emulation ends (the page
/// gets its `online` event from Chromium).
pub(crate) async fn go_online(browser: &Browser, relay: &Relay) -> anyhow::Result<()> {
    relay.restore();
    browser.clear_network_conditions().await?;
    Ok(())
}

/// Types one hand on the console form: bids and tricks of seats 1–4 in the form's names.
async fn type_hand(browser: &Browser, hand: &Hand) -> anyhow::Result<()> {
    for (team, seats) in [("a", hand.a), ("b", hand.b)] {
        for (i, (bid, took)) in seats.iter().enumerate() {
            browser
                .select_by_value(&format!("select[name=\"{team}_bid{i}\"]"), bid)
                .await?;
            let input = browser
                .find(&format!("input[name=\"{team}_tricks{i}\"]"))
                .await?;
            browser.clear(&input).await?;
            browser.send_keys(&input, took).await?;
        }
    }
    Ok(())
}

/// A hand as typed: (bid, took) of seats 1 and 3 (team a), then 2 and 4 (team b).
struct Hand {
    a: [(&'static str, &'static str); 2],
    b: [(&'static str, &'static str); 2],
}

impl Hand {
    /// The hand as the API shows it back (`hand` of a recorded hand).
    fn api(&self) -> Value {
        let bid = |b: &str| b.parse::<i64>().map_or_else(|_| json!(b), |n| json!(n));
        let took = |t: &str| json!(t.parse::<i64>().expect("tricks"));
        let team = |seats: [(&str, &str); 2]| {
            json!({"bids": [bid(seats[0].0), bid(seats[1].0)],
                   "tricks": [took(seats[0].1), took(seats[1].1)]})
        };
        json!({"a": team(self.a), "b": team(self.b)})
    }
}

const FIRST: Hand = Hand {
    a: [("4", "5"), ("nil", "0")],
    b: [("3", "4"), ("3", "4")],
};
const SECOND: Hand = Hand {
    a: [("5", "6"), ("2", "2")],
    b: [("4", "3"), ("1", "2")],
};

/// Waits until `script` (a function body) returns `true` in the page; errors while a page is
/// replaced count as "not yet".
async fn until(browser: &Browser, what: &str, script: &str) -> anyhow::Result<()> {
    let deadline = Instant::now() + WAIT;
    loop {
        let last = match browser.execute(script, json!([])).await {
            Ok(Value::Bool(true)) => return Ok(()),
            Ok(other) => other,
            Err(e) => json!(e.to_string()),
        };
        if Instant::now() >= deadline {
            bail!("{what}: not after {WAIT:?} (last: {last})");
        }
        sleep(Duration::from_millis(100)).await;
    }
}

/// The outbox kept in the page's localStorage for this match: every item, in order.
async fn stored(browser: &Browser, id: i64) -> anyhow::Result<Vec<Value>> {
    let value = browser
        .execute(
            "const items = []; \
             for (let i = 0; i < localStorage.length; i++) { \
               const k = localStorage.key(i); \
               if (k.startsWith('spades-im.outbox.') && k.endsWith('.' + arguments[0])) \
                 items.push(...(JSON.parse(localStorage.getItem(k)).items || [])); \
             } \
             return items;",
            json!([id.to_string()]),
        )
        .await?;
    Ok(value.as_array().cloned().unwrap_or_default())
}

/// The match as the API shows it now.
async fn api_match(admin: &Api, id: i64) -> anyhow::Result<Value> {
    let response = admin.get(&format!("/api/v1/matches/{id}")).await;
    ensure!(response.status() == 200, "GET match: {}", response.status());
    Ok(response.json().await?)
}

fn hands_of(view: &Value) -> Vec<Value> {
    view["hands"]
        .as_array()
        .map(|hands| hands.iter().map(|h| h["hand"].clone()).collect())
        .unwrap_or_default()
}

/// Waits until the API shows `count` hands.
async fn until_hands(admin: &Api, id: i64, count: usize) -> anyhow::Result<Value> {
    let deadline = Instant::now() + WAIT;
    loop {
        let view = api_match(admin, id).await?;
        if hands_of(&view).len() == count {
            return Ok(view);
        }
        if Instant::now() >= deadline {
            bail!("the API has {} hands, not {count}", hands_of(&view).len());
        }
        sleep(Duration::from_millis(100)).await;
    }
}

/// The text of the outbox's count (`#outbox`) and its `data-count`, read in one script: the
/// outbox re-renders itself as it sends, so a found element may be gone a moment later.
async fn outbox(browser: &Browser) -> anyhow::Result<(String, String)> {
    let read = browser
        .execute(
            "const o = document.getElementById('outbox'); \
             return o ? [o.innerText, o.getAttribute('data-count') || ''] : null;",
            serde_json::json!([]),
        )
        .await?;
    let pair = read
        .as_array()
        .ok_or_else(|| anyhow::anyhow!("no #outbox on the page"))?;
    let text = |i: usize| {
        pair.get(i)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string()
    };
    Ok((text(0), text(1)))
}

/// The outbox's list items: (state, text), in order (one script, as for [`outbox`]).
async fn pending(browser: &Browser) -> anyhow::Result<Vec<(String, String)>> {
    let read = browser
        .execute(
            "return Array.from(document.querySelectorAll('#pending-hands li.outbox-item')) \
               .map(li => [li.getAttribute('data-state') || '', li.innerText]);",
            serde_json::json!([]),
        )
        .await?;
    Ok(read
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|item| {
                    let text = |i: usize| {
                        item.get(i)
                            .and_then(|v| v.as_str())
                            .unwrap_or_default()
                            .to_string()
                    };
                    (text(0), text(1))
                })
                .collect()
        })
        .unwrap_or_default())
}

const SENT_ONCE: &str = "browser_outbox::a_hand_recorded_offline_is_sent_once_when_back_online";

/// Offline: a hand is kept (the count, the list, the form ready for hand 2 with a new key
/// and the next version); a reload without a connection still shows the match and the kept
/// hand; back online the hand is recorded exactly once. Then a second hand whose answer is
/// lost on the way back (the app recorded it): it is kept, sent again by itself, and the
/// app still has it once (its idempotency key).
#[actix_web::test]
async fn a_hand_recorded_offline_is_sent_once_when_back_online() {
    let app = spawn_app().await;
    let (admin, id) = league_night(&app).await;
    let relay = relay_for(&app);
    with_browser(SENT_ONCE, "outbox-sent-once", WHOLE_TEST, async |browser| {
        open_console(browser, &relay, "sam", id).await?;
        let base = api_match(&admin, id).await?["version"]
            .as_i64()
            .context("version")?;
        ensure!(
            browser.value_of("#hand-form input[name=\"expected_version\"]").await?
                == base.to_string(),
            "the form is on the match's version"
        );

        go_offline(browser, &relay).await?;
        type_hand(browser, &FIRST).await?;
        let record = browser.find("#record").await?;
        browser.click(&record).await?;
        until(
            browser,
            "the outbox counts the hand",
            "const o = document.getElementById('outbox'); \
             return !!o && o.dataset.count === '1' && o.textContent.includes('1 waiting to send');",
        )
        .await?;
        let items = pending(browser).await?;
        ensure!(items.len() == 1, "one item listed: {items:?}");
        ensure!(
            items[0].0 == "waiting"
                && items[0].1.contains("waiting to send")
                && items[0].1.contains("Hand 1"),
            "hand 1 is listed as waiting: {items:?}"
        );
        let kept = stored(browser, id).await?;
        ensure!(kept.len() == 1, "one item in localStorage: {kept:?}");
        let key = kept[0]["key"].as_str().context("the kept key")?.to_string();
        ensure!(
            kept[0]["base"] == json!(base) && !key.is_empty(),
            "kept with its version and key: {}",
            kept[0]
        );
        // The form is ready for the next hand, after the kept one.
        ensure!(
            browser.value_of("#hand-form input[name=\"expected_version\"]").await?
                == (base + 1).to_string(),
            "the next hand is typed on the version after the kept one"
        );
        let next_key = browser
            .value_of("#hand-form input[name=\"idempotency_key\"]")
            .await?;
        ensure!(
            !next_key.is_empty() && next_key != key,
            "the next hand has a new key"
        );
        ensure!(
            browser.text_of("#dealer").await? == "2",
            "hand 2 is dealt by seat 2"
        );
        ensure!(
            browser.value_of("select[name=\"a_bid0\"]").await?.is_empty()
                && browser.value_of("input[name=\"a_tricks0\"]").await?.is_empty(),
            "the form is empty for the next hand"
        );
        ensure!(
            hands_of(&api_match(&admin, id).await?).is_empty(),
            "nothing reached the app while offline"
        );

        // A reload without a connection: the service worker's copy of the console, and the
        // outbox from localStorage.
        let refused_before = relay.refused();
        browser.refresh().await?;
        browser.wait_for("#hand-form", WAIT).await?;
        ensure!(
            browser.text_of("#match-title").await?.contains(" v "),
            "the match is shown offline"
        );
        until(
            browser,
            "the kept hand is shown after the reload",
            "const o = document.getElementById('outbox'); \
             return !!o && o.dataset.count === '1';",
        )
        .await?;
        let items = pending(browser).await?;
        ensure!(
            items.len() == 1 && items[0].1.contains("Hand 1") && items[0].1.contains("waiting to send"),
            "after the reload: {items:?}"
        );
        ensure!(
            relay.refused() > refused_before,
            "the reload really found no connection (the worker's fetch was refused)"
        );
        ensure!(
            browser.value_of("#hand-form input[name=\"expected_version\"]").await?
                == (base + 1).to_string(),
            "after the reload the form is still for the hand after the kept one"
        );
        ensure!(
            hands_of(&api_match(&admin, id).await?).is_empty(),
            "still nothing recorded"
        );

        // Back online: sent by itself, once; the console reloads with the server's page.
        go_online(browser, &relay).await?;
        let view = until_hands(&admin, id, 1).await?;
        ensure!(
            hands_of(&view)[0] == FIRST.api(),
            "the hand as typed: {}",
            hands_of(&view)[0]
        );
        until(
            browser,
            "the console shows the recorded hand and an empty outbox",
            "const o = document.getElementById('outbox'); \
             return !!o && o.dataset.count === '0' && !document.getElementById('no-hands') \
               && document.readyState === 'complete';",
        )
        .await?;
        // Read in one script: the page may still be replaced by the server's (POST, redirect,
        // GET) between a find and a read.
        until(
            browser,
            "the console shows the server's score",
            "const a = document.getElementById('score-a'), b = document.getElementById('score-b'); \
             return !!a && !!b && a.textContent.trim() === '101' && b.textContent.trim() === '62';",
        )
        .await?;
        ensure!(stored(browser, id).await?.is_empty(), "nothing kept any more");
        sleep(Duration::from_secs(3)).await;
        let view = api_match(&admin, id).await?;
        ensure!(
            hands_of(&view).len() == 1 && view["version"] == json!(base + 1),
            "recorded exactly once: {} hands, version {}",
            hands_of(&view).len(),
            view["version"]
        );

        // Hand 2 reaches the app but its answer is lost: kept, sent again, recorded once.
        relay.swallow_answers();
        type_hand(browser, &SECOND).await?;
        let record = browser.find("#record").await?;
        browser.click(&record).await?;
        until(
            browser,
            "the hand whose answer was lost is kept",
            "const o = document.getElementById('outbox'); return !!o && o.dataset.count === '1';",
        )
        .await?;
        let view = until_hands(&admin, id, 2).await?;
        ensure!(relay.swallowed() > 0, "an answer was really lost");
        ensure!(
            stored(browser, id).await?.len() == 1,
            "the browser does not know: it keeps the hand"
        );
        ensure!(hands_of(&view)[1] == SECOND.api(), "hand 2 as typed");
        relay.restore();
        until(
            browser,
            "the kept hand is sent again and the console reloaded",
            "const o = document.getElementById('outbox'); \
             return !!o && o.dataset.count === '0' && document.querySelectorAll('#pending-hands li').length === 0 \
               && document.readyState === 'complete';",
        )
        .await?;
        sleep(Duration::from_secs(3)).await;
        let view = api_match(&admin, id).await?;
        ensure!(
            hands_of(&view).len() == 2 && view["version"] == json!(base + 2),
            "hand 2 recorded once, not twice: {} hands, version {}",
            hands_of(&view).len(),
            view["version"]
        );
        ensure!(stored(browser, id).await?.is_empty(), "nothing kept");
        Ok(())
    })
    .await;
}

const CONFLICT: &str =
    "browser_outbox::a_queued_hand_that_meets_a_conflict_waits_for_the_supervisor";

/// Offline, two hands are kept (on versions v and v+1); meanwhile a second supervisor
/// records a hand through the API. Back online the first kept hand meets the conflict: both
/// stay kept and listed, beside the match as it is now, until the supervisor chooses to send
/// them on the current version; then the match has all three hands, in order.
#[actix_web::test]
async fn a_queued_hand_that_meets_a_conflict_waits_for_the_supervisor() {
    let app = spawn_app().await;
    let (admin, id) = league_night(&app).await;
    let kim = app.api_user("kim", Role::Supervisor).await;
    let response = admin
        .post(
            "/api/v1/leagues/fall/supervisors",
            &json!({"username": "kim"}),
        )
        .await;
    assert_eq!(response.status(), 204);
    let relay = relay_for(&app);
    with_browser(CONFLICT, "outbox-conflict", WHOLE_TEST, async |browser| {
        open_console(browser, &relay, "sam", id).await?;
        let base = api_match(&admin, id).await?["version"]
            .as_i64()
            .context("version")?;

        go_offline(browser, &relay).await?;
        for (n, hand) in [(1, &FIRST), (2, &SECOND)] {
            type_hand(browser, hand).await?;
            let record = browser.find("#record").await?;
            browser.click(&record).await?;
            until(
                browser,
                &format!("hand {n} is kept"),
                &format!(
                    "const o = document.getElementById('outbox'); \
                     return !!o && o.dataset.count === '{n}';"
                ),
            )
            .await?;
        }
        let kept = stored(browser, id).await?;
        ensure!(kept.len() == 2, "two kept: {kept:?}");
        ensure!(
            kept[0]["base"] == json!(base) && kept[1]["base"] == json!(base + 1),
            "kept in order on versions v and v+1: {kept:?}"
        );
        ensure!(
            kept[0]["key"] != kept[1]["key"],
            "each hand has its own key"
        );
        let items = pending(browser).await?;
        ensure!(
            items.len() == 2 && items[0].1.contains("Hand 1") && items[1].1.contains("Hand 2"),
            "listed in order: {items:?}"
        );
        ensure!(
            browser.text_of("#dealer").await? == "3",
            "the form is for hand 3"
        );

        // Meanwhile kim records a hand at the same table.
        let kims = Hand {
            a: [("3", "3"), ("3", "3")],
            b: [("4", "4"), ("3", "3")],
        };
        let response = kim
            .post(
                &format!("/api/v1/matches/{id}/hands"),
                &json!({"hand": kims.api(), "expected_version": base}),
            )
            .await;
        ensure!(response.status() == 201, "kim's hand: {}", response.status());

        go_online(browser, &relay).await?;
        until(
            browser,
            "the conflict is shown",
            "return !!document.querySelector('#pending-hands li.outbox-item[data-state=\"conflict\"]') \
               && !!document.getElementById('outbox-resend');",
        )
        .await?;
        let items = pending(browser).await?;
        ensure!(
            items.len() == 2
                && items[0].0 == "conflict"
                && items[0].1.contains("the match changed")
                && items[1].0 == "waiting",
            "both still listed, the first in conflict: {items:?}"
        );
        let server = browser.text_of("#pending-hands .outbox-server").await?;
        ensure!(
            server.contains("1 hand recorded"),
            "the server's state beside the kept hands: {server}"
        );
        let phone = browser.text_of("#pending-hands .outbox-phone").await?;
        ensure!(
            phone.contains("Hand 1") && phone.contains("Hand 2"),
            "the kept hands beside it: {phone}"
        );
        ensure!(
            // The conflicting hand waits for the supervisor, not for the connection.
            outbox(browser).await?.0 == "1 waiting to send · 1 not sent: needs you",
            "the count: {:?}",
            outbox(browser).await?
        );
        // Nobody decided: nothing else is sent, nothing is dropped, even after a while and a
        // reload.
        sleep(Duration::from_secs(5)).await;
        ensure!(
            hands_of(&api_match(&admin, id).await?).len() == 1,
            "only kim's hand is recorded"
        );
        ensure!(stored(browser, id).await?.len() == 2, "both still kept");
        browser.refresh().await?;
        until(
            browser,
            "the conflict is still shown after a reload",
            "return document.querySelectorAll('#pending-hands li.outbox-item').length === 2 \
               && !!document.getElementById('outbox-resend');",
        )
        .await?;
        ensure!(
            hands_of(&api_match(&admin, id).await?).len() == 1,
            "still only kim's hand"
        );

        // The supervisor sends them on the current version.
        let resend = browser.find("#outbox-resend").await?;
        browser.click(&resend).await?;
        let view = until_hands(&admin, id, 3).await?;
        let hands = hands_of(&view);
        ensure!(
            hands[0] == kims.api() && hands[1] == FIRST.api() && hands[2] == SECOND.api(),
            "kim's hand, then the two kept, in order: {hands:?}"
        );
        until(
            browser,
            "the console shows the server's page with an empty outbox",
            "const o = document.getElementById('outbox'); \
             return !!o && o.dataset.count === '0' && document.readyState === 'complete' \
               && document.querySelectorAll('#pending-hands li').length === 0;",
        )
        .await?;
        ensure!(stored(browser, id).await?.is_empty(), "nothing kept any more");
        sleep(Duration::from_secs(2)).await;
        let view = api_match(&admin, id).await?;
        ensure!(
            hands_of(&view).len() == 3 && view["version"] == json!(base + 3),
            "three hands, each once: {} hands, version {}",
            hands_of(&view).len(),
            view["version"]
        );
        Ok(())
    })
    .await;
}

/// The value a promise (a JavaScript expression) settles to in the page: `{"ok": value}` or
/// `{"error": message}`.
async fn settled(browser: &Browser, promise: &str) -> anyhow::Result<Value> {
    browser
        .execute(
            &format!(
                "window.__settled = null; \
                 Promise.resolve().then(() => {promise}).then( \
                   (v) => {{ window.__settled = {{ ok: v }}; }}, \
                   (e) => {{ window.__settled = {{ error: String(e) }}; }}); \
                 return true;"
            ),
            json!([]),
        )
        .await?;
    let deadline = Instant::now() + WAIT;
    loop {
        let value = browser
            .execute("return window.__settled;", json!([]))
            .await?;
        if !value.is_null() {
            return Ok(value);
        }
        if Instant::now() >= deadline {
            bail!("{promise}: not settled after {WAIT:?}");
        }
        sleep(Duration::from_millis(100)).await;
    }
}

/// What the site keeps on the phone, read from one of its pages: the Cache Storage caches,
/// the service workers registered, and the localStorage keys.
async fn kept_on_phone(browser: &Browser) -> anyhow::Result<(Value, Value, Value)> {
    let caches = settled(browser, "caches.keys()").await?;
    let workers = settled(
        browser,
        "navigator.serviceWorker.getRegistrations().then((r) => r.length)",
    )
    .await?;
    let storage = browser
        .execute("return Object.keys(localStorage);", json!([]))
        .await?;
    Ok((caches["ok"].clone(), workers["ok"].clone(), storage))
}

/// Offline, `/supervise/matches/{id}` shows nothing of the session: neither the console nor
/// the name of who was logged in.
async fn console_gone_offline(
    browser: &Browser,
    relay: &Relay,
    id: i64,
    what: &str,
) -> anyhow::Result<()> {
    go_offline(browser, relay).await?;
    // Offline without a worker the navigation fails: Chromium's error page is the answer.
    let _ = browser
        .goto(&relay.url(&format!("/supervise/matches/{id}")))
        .await;
    let source = browser.source().await?;
    go_online(browser, relay).await?;
    ensure!(
        !source.contains("hand-form") && !source.contains(">sam<"),
        "{what}: the console is still readable offline:\n{source}"
    );
    Ok(())
}

/// The page is the home page, logged out.
async fn logged_out_home(browser: &Browser) -> anyhow::Result<()> {
    browser
        .wait_for("header a[href=\"/login\"]", WAIT)
        .await
        .context("logged out: the header offers the login")?;
    Ok(())
}

const LOGOUT: &str = "browser_outbox::a_log_out_from_any_page_leaves_no_console_on_the_phone";

/// A shared phone: the supervisor opens the console (its service worker keeps the page),
/// goes to a public page and logs out there. Offline, the console's saved page with the
/// supervisor's name is gone, and so are the worker, its caches and the outbox's storage:
///
/// 1. by the log-out answer alone (`Clear-Site-Data`: the form is posted without
///    `session.js`, as without JavaScript);
/// 2. by `session.js` alone, when the answer never reaches the phone;
/// 3. with an entry still waiting in the outbox, the log-out asks first; "Cancel" keeps it
///    and the session.
///
/// (Before: a log-out from any page but the console left the console's pages readable
/// offline.)
#[actix_web::test]
async fn a_log_out_from_any_page_leaves_no_console_on_the_phone() {
    let app = spawn_app().await;
    let (admin, id) = league_night(&app).await;
    let relay = relay_for(&app);
    with_browser(LOGOUT, "logout-clears", WHOLE_TEST, async |browser| {
        // 1. The answer's Clear-Site-Data.
        open_console(browser, &relay, "sam", id).await?;
        let (caches, workers, _) = kept_on_phone(browser).await?;
        ensure!(
            caches.to_string().contains("spades-im-pages") && workers == json!(1),
            "the worker keeps the console: {caches} {workers}"
        );
        browser.goto(&relay.url("/leagues")).await?;
        browser
            .wait_for("header form[action=\"/logout\"]", WAIT)
            .await?;
        // form.submit() fires no submit event: session.js is not asked.
        browser
            .execute(
                "document.querySelector('header form[action=\"/logout\"]').submit(); return true;",
                json!([]),
            )
            .await?;
        logged_out_home(browser).await?;
        let (caches, workers, storage) = kept_on_phone(browser).await?;
        ensure!(
            !caches.to_string().contains("spades-im-pages")
                && workers == json!(0)
                && storage == json!([]),
            "the log-out answer cleared nothing: caches {caches}, workers {workers}, storage {storage}"
        );
        console_gone_offline(browser, &relay, id, "after the answer's Clear-Site-Data").await?;

        // 2. session.js, the answer lost on the way back.
        open_console(browser, &relay, "sam", id).await?;
        browser.goto(&relay.url("/leagues")).await?;
        let button = browser
            .wait_for("header form[action=\"/logout\"] button", WAIT)
            .await?;
        let swallowed = relay.swallowed();
        relay.swallow_answers();
        browser.click(&button).await?;
        let deadline = Instant::now() + WAIT;
        while relay.swallowed() == swallowed {
            ensure!(Instant::now() < deadline, "the log-out never reached the app");
            sleep(Duration::from_millis(100)).await;
        }
        relay.restore();
        browser.goto(&relay.url("/leagues")).await?;
        browser
            .wait_for("header a[href=\"/login\"]", WAIT)
            .await
            .context("the log-out reached the app: the session is over")?;
        let (caches, _, storage) = kept_on_phone(browser).await?;
        ensure!(
            !caches.to_string().contains("spades-im-pages") && storage == json!([]),
            "session.js cleared nothing: caches {caches}, storage {storage}"
        );
        console_gone_offline(browser, &relay, id, "after session.js").await?;

        // 3. An entry waits in the outbox: a hand typed offline meets kim's change (409).
        app.user("kim", Role::Supervisor).await;
        let response = admin
            .post(
                "/api/v1/leagues/fall/supervisors",
                &json!({"username": "kim"}),
            )
            .await;
        ensure!(response.status() == 204, "kim: {}", response.status());
        let kim = app.api(&app.token("kim").await);
        open_console(browser, &relay, "sam", id).await?;
        let base = api_match(&admin, id).await?["version"].clone();
        go_offline(browser, &relay).await?;
        type_hand(browser, &FIRST).await?;
        let record = browser.find("#record").await?;
        browser.click(&record).await?;
        until(
            browser,
            "the hand is kept",
            "const o = document.getElementById('outbox'); return !!o && o.dataset.count === '1';",
        )
        .await?;
        let response = kim
            .post(
                &format!("/api/v1/matches/{id}/hands"),
                &json!({"hand": SECOND.api(), "expected_version": base}),
            )
            .await;
        ensure!(response.status() == 201, "kim's hand: {}", response.status());
        go_online(browser, &relay).await?;
        until(
            browser,
            "the conflict waits for sam",
            "return !!document.querySelector('#pending-hands li.outbox-item[data-state=\"conflict\"]');",
        )
        .await?;
        browser.goto(&relay.url("/leagues")).await?;
        let button = browser
            .wait_for("header form[action=\"/logout\"] button", WAIT)
            .await?;
        browser.click(&button).await?;
        let deadline = Instant::now() + WAIT;
        let question = loop {
            if let Some(text) = browser.dialog_text().await? {
                break text;
            }
            ensure!(Instant::now() < deadline, "no question before the log-out");
            sleep(Duration::from_millis(100)).await;
        };
        ensure!(
            question.contains("1 entry") && question.contains("Log out anyway?"),
            "{question}"
        );
        browser.answer_dialog(false).await?;
        sleep(Duration::from_millis(500)).await;
        browser.goto(&relay.url("/leagues")).await?;
        browser
            .wait_for("header form[action=\"/logout\"]", WAIT)
            .await
            .context("Cancel: still logged in")?;
        ensure!(stored(browser, id).await?.len() == 1, "Cancel: the entry is kept");
        // Asked again and confirmed: logged out, and nothing is left.
        let button = browser.find("header form[action=\"/logout\"] button").await?;
        browser.click(&button).await?;
        let deadline = Instant::now() + WAIT;
        while browser.dialog_text().await?.is_none() {
            ensure!(Instant::now() < deadline, "no question the second time");
            sleep(Duration::from_millis(100)).await;
        }
        browser.answer_dialog(true).await?;
        logged_out_home(browser).await?;
        let (caches, _, storage) = kept_on_phone(browser).await?;
        ensure!(
            !caches.to_string().contains("spades-im-pages") && storage == json!([]),
            "after the confirmed log-out: caches {caches}, storage {storage}"
        );
        console_gone_offline(browser, &relay, id, "after the confirmed log-out").await?;
        Ok(())
    })
    .await;
}

const LINEUP_ONCE: &str =
    "browser_outbox::a_lineup_set_offline_is_sent_once_in_order_with_the_hands";

/// Offline: team a's lineup (its two players, the second first) and then a hand are kept in
/// that order; back online the lineup reaches the app once (one audited lineup), then the
/// hand, on the version the lineup moved the match to.
#[actix_web::test]
async fn a_lineup_set_offline_is_sent_once_in_order_with_the_hands() {
    let app = spawn_app().await;
    let (admin, id) = league_night(&app).await;
    let relay = relay_for(&app);
    with_browser(LINEUP_ONCE, "outbox-lineup", WHOLE_TEST, async |browser| {
        open_console(browser, &relay, "sam", id).await?;
        let base = api_match(&admin, id).await?["version"]
            .as_i64()
            .context("version")?;
        go_offline(browser, &relay).await?;
        // The second of the roster in seat 1, the first in seat 3.
        let names = browser
            .execute(
                "const one = document.getElementById('lineup-a-player1'); \
                 const two = document.getElementById('lineup-a-player2'); \
                 one.selectedIndex = 2; two.selectedIndex = 1; \
                 return [one.options[2].text, two.options[1].text];",
                json!([]),
            )
            .await?;
        let submit = browser.find("#lineup-a-submit").await?;
        browser.click(&submit).await?;
        until(
            browser,
            "the outbox counts the lineup",
            "const o = document.getElementById('outbox'); return !!o && o.dataset.count === '1';",
        )
        .await?;
        type_hand(browser, &FIRST).await?;
        let record = browser.find("#record").await?;
        browser.click(&record).await?;
        until(
            browser,
            "the outbox counts the lineup and the hand",
            "const o = document.getElementById('outbox'); return !!o && o.dataset.count === '2';",
        )
        .await?;
        let items = pending(browser).await?;
        ensure!(
            items.len() == 2 && items[0].1.contains("lineup") && items[1].1.contains("Hand 1"),
            "the lineup first, then the hand: {items:?}"
        );
        let view = api_match(&admin, id).await?;
        ensure!(
            view["lineup"]["a"].is_null() && hands_of(&view).is_empty(),
            "nothing reached the app while offline: {}",
            view["lineup"]
        );

        go_online(browser, &relay).await?;
        let view = until_hands(&admin, id, 1).await?;
        ensure!(hands_of(&view) == vec![FIRST.api()], "the hand as typed");
        let seated: Vec<Value> = view["lineup"]["a"]
            .as_array()
            .map(|s| s.iter().map(|p| p["name"].clone()).collect())
            .unwrap_or_default();
        ensure!(
            json!(seated) == names,
            "the lineup as picked: {seated:?}, not {names}"
        );
        ensure!(
            view["version"] == json!(base + 2),
            "one lineup and one hand moved the version on: {}",
            view["version"]
        );
        until(
            browser,
            "the outbox is empty",
            "const o = document.getElementById('outbox'); return !o || o.dataset.count === '0' || o.hidden;",
        )
        .await?;
        let mut conn = app.db.read().await?;
        let lineups: Vec<(i64,)> = spades_im::on_store!(conn, |c| sqlx::query_as(
            "SELECT entity_id FROM audit_log WHERE action = 'lineup'"
        )
        .fetch_all(c)
        .await)?;
        ensure!(lineups.len() == 1, "one lineup recorded: {lineups:?}");
        Ok(())
    })
    .await;
}

/// Types `hand` and taps Record while the page cannot reach the app, and waits until the
/// outbox keeps it (`count` items waiting) and the form is free again (its try failed).
async fn keep_a_hand(browser: &Browser, hand: &Hand, count: usize) -> anyhow::Result<()> {
    type_hand(browser, hand).await?;
    let record = browser.find("#record").await?;
    browser.click(&record).await?;
    until(
        browser,
        "the outbox keeps the hand",
        &format!(
            "const o = document.getElementById('outbox'); \
             return !!o && o.dataset.count === '{count}' \
               && !document.getElementById('hand-form').hasAttribute('aria-busy');"
        ),
    )
    .await
}

const AT_ONCE: &str = "browser_outbox::a_kept_hand_is_sent_the_moment_the_connection_returns";

/// How long after the connection returns a kept hand is recorded, in the two ways a table's
/// Wi-Fi comes back: the phone was told it was offline (the `online` event comes), and the
/// phone kept its Wi-Fi but the Wi-Fi lost its way out (no event: `navigator.onLine` stayed
/// true). Before each return the phone waits 7 s, long enough for a doubling backoff
/// (2 s, 4 s, 8 s) to put its next try far away. Prints both figures (BENCHMARKS.md).
#[actix_web::test]
async fn a_kept_hand_is_sent_the_moment_the_connection_returns() {
    let app = spawn_app().await;
    let (admin, id) = league_night(&app).await;
    let relay = relay_for(&app);
    with_browser(AT_ONCE, "outbox-at-once", WHOLE_TEST, async |browser| {
        open_console(browser, &relay, "sam", id).await?;

        // The Wi-Fi stays, the way out is lost: no `offline`, no `online` event.
        relay.cut();
        keep_a_hand(browser, &FIRST, 1).await?;
        sleep(Duration::from_secs(7)).await;
        ensure!(hands_of(&api_match(&admin, id).await?).is_empty(), "nothing got through");
        relay.restore();
        let back = Instant::now();
        until_hands(&admin, id, 1).await?;
        let without_event = back.elapsed();

        // The phone is told it is offline, then online.
        browser.goto(&relay.url(&format!("/supervise/matches/{id}"))).await?;
        browser.wait_for("#hand-form", WAIT).await?;
        go_offline(browser, &relay).await?;
        keep_a_hand(browser, &SECOND, 1).await?;
        sleep(Duration::from_secs(7)).await;
        go_online(browser, &relay).await?;
        let back = Instant::now();
        until_hands(&admin, id, 2).await?;
        let with_event = back.elapsed();

        println!(
            "outbox: connection back → hand recorded: {} ms with the online event, {} ms without it",
            with_event.as_millis(),
            without_event.as_millis()
        );
        ensure!(
            with_event < Duration::from_millis(1500),
            "with the online event the hand waited {with_event:?}"
        );
        ensure!(
            without_event < Duration::from_secs(4),
            "without an event the hand waited {without_event:?}"
        );
        Ok(())
    })
    .await;
}

/// Opens the console of match `id` (logged in already) once its worker keeps the page.
async fn open_match(browser: &Browser, relay: &Relay, id: i64) -> anyhow::Result<()> {
    browser
        .goto(&relay.url(&format!("/supervise/matches/{id}")))
        .await?;
    browser.wait_for("#hand-form", WAIT).await?;
    browser
        .wait_for("html[data-outbox-offline=\"ready\"]", WAIT)
        .await
        .context("the service worker keeps the console")?;
    Ok(())
}

/// Waits until the banner at the top of the page says `words`.
async fn until_banner(browser: &Browser, words: &str) -> anyhow::Result<()> {
    until(
        browser,
        &format!("the banner says {words:?}"),
        &format!(
            "const b = document.getElementById('outbox-banner'); \
             return !!b && !b.hidden && b.getAttribute('role') === 'status' \
               && b.textContent.includes({});",
            json!(words)
        ),
    )
    .await
}

/// The answers the app gave to `method` on `route` (a route pattern), by status, from its
/// `/metrics`.
async fn answers_to(
    app: &TestApp,
    method: &str,
    route: &str,
) -> anyhow::Result<std::collections::BTreeMap<u16, u64>> {
    let text = app.get("/metrics").await.text().await?;
    let (method, route) = (format!("method=\"{method}\""), format!("route=\"{route}\""));
    let mut counts = std::collections::BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| l.starts_with("http_requests_total{"))
    {
        if !line.contains(&method) || !line.contains(&route) {
            continue;
        }
        let status = line.split("status=\"").nth(1).and_then(|r| r.get(..3));
        let count = line.rsplit(' ').next().and_then(|c| c.parse::<u64>().ok());
        if let (Some(status), Some(count)) = (status.and_then(|s| s.parse().ok()), count) {
            *counts.entry(status).or_insert(0) += count;
        }
    }
    Ok(counts)
}

const LIGHT: &str = "browser_outbox::kept_hands_are_answered_their_totals_and_the_page_loads_once";

/// Three hands kept offline are sent, when the connection returns, each answered with its
/// totals (201, not a redirect to the console page, which lists every hand); the console
/// page is loaded once after the last (the reload, and the worker keeping it), not once per
/// hand; it then shows the three hands and the server's score.
#[actix_web::test]
async fn kept_hands_are_answered_their_totals_and_the_page_loads_once() {
    let app = spawn_app().await;
    let (admin, id) = league_night(&app).await;
    let relay = relay_for(&app);
    with_browser(LIGHT, "outbox-light", WHOLE_TEST, async |browser| {
        open_console(browser, &relay, "sam", id).await?;
        go_offline(browser, &relay).await?;
        for (n, hand) in [&FIRST, &SECOND, &FIRST].into_iter().enumerate() {
            keep_a_hand(browser, hand, n + 1).await?;
        }
        let pages = "/supervise/matches/{id}";
        let hands = "/supervise/matches/{id}/hands";
        let pages_before = answers_to(&app, "GET", pages).await?;
        let hands_before = answers_to(&app, "POST", hands).await?;
        go_online(browser, &relay).await?;
        let view = until_hands(&admin, id, 3).await?;
        until(
            browser,
            "the console shows the three hands and an empty outbox",
            "const o = document.getElementById('outbox'); \
             return !!o && o.dataset.count === '0' && document.readyState === 'complete' \
               && document.getElementById('pending-hands').dataset.nextHand === '4';",
        )
        .await?;
        // The worker keeps the page it shows.
        sleep(Duration::from_secs(2)).await;
        let new = |after: &std::collections::BTreeMap<u16, u64>,
                   before: &std::collections::BTreeMap<u16, u64>,
                   status: u16| {
            after.get(&status).unwrap_or(&0) - before.get(&status).unwrap_or(&0)
        };
        let hands_after = answers_to(&app, "POST", hands).await?;
        ensure!(
            new(&hands_after, &hands_before, 201) == 3
                && new(&hands_after, &hands_before, 303) == 0,
            "each hand answered its totals: {hands_before:?} → {hands_after:?}"
        );
        let pages_after = answers_to(&app, "GET", pages).await?;
        let loads = new(&pages_after, &pages_before, 200);
        ensure!(
            (1..=2).contains(&loads),
            "the console page loaded once after the three hands, not per hand: {loads} loads"
        );
        let score = |side: &str| view[side]["score"].to_string();
        let shown = browser
            .execute(
                "return [document.getElementById('score-a').textContent.trim(), \
                         document.getElementById('score-b').textContent.trim()];",
                json!([]),
            )
            .await?;
        ensure!(
            shown == json!([score("a"), score("b")]),
            "the server's score: {shown} (the match: {} – {})",
            score("a"),
            score("b")
        );
        Ok(())
    })
    .await;
}

const SENT_WHILE_TYPING: &str =
    "browser_outbox::hands_sent_while_the_next_is_typed_show_at_once_and_the_typing_stays";

/// Two hands kept offline are sent while the supervisor has begun typing the next one: the
/// scoresheet and the score show them as soon as they are recorded, with no page load, the
/// hand being typed stays as it is, and its preview counts from the new score.
#[actix_web::test]
async fn hands_sent_while_the_next_is_typed_show_at_once_and_the_typing_stays() {
    let app = spawn_app().await;
    let (admin, id) = league_night(&app).await;
    let relay = relay_for(&app);
    with_browser(SENT_WHILE_TYPING, "outbox-typing", WHOLE_TEST, async |browser| {
        open_console(browser, &relay, "sam", id).await?;
        go_offline(browser, &relay).await?;
        keep_a_hand(browser, &FIRST, 1).await?;
        keep_a_hand(browser, &SECOND, 2).await?;
        // The third hand, begun: a bid and a trick count typed.
        browser
            .select_by_value("select[name=\"a_bid0\"]", "4")
            .await?;
        let took = browser.find("input[name=\"a_tricks0\"]").await?;
        browser.send_keys(&took, "5").await?;
        browser
            .execute("window.samePage = true;", json!([]))
            .await?;
        go_online(browser, &relay).await?;
        let view = until_hands(&admin, id, 2).await?;
        until(
            browser,
            "the scoresheet shows the two hands sent",
            "return document.querySelectorAll('#sheet-block table.sheet tbody tr').length === 2;",
        )
        .await?;
        let kept = browser
            .execute(
                "return [window.samePage === true, \
                         document.querySelector('select[name=a_bid0]').value, \
                         document.querySelector('input[name=a_tricks0]').value, \
                         document.getElementById('score-a').textContent.trim(), \
                         JSON.parse(document.getElementById('match-data').textContent).hands.length];",
                json!([]),
            )
            .await?;
        ensure!(
            kept == json!([true, "4", "5", view["a"]["score"].to_string(), 2]),
            "no page load, the typing kept, the server's score, the preview's data new: {kept}"
        );
        Ok(())
    })
    .await;
}

const SERVER_FAILS: &str =
    "browser_outbox::a_hand_the_server_fails_to_take_is_kept_and_recorded_once_later";

/// Online, the server answers a hand with 503 (busy), then its next try with 500: the hand
/// stays on the phone (the banner and the list say so), and once the server answers again
/// it is recorded, exactly once.
#[actix_web::test]
async fn a_hand_the_server_fails_to_take_is_kept_and_recorded_once_later() {
    let app = spawn_app().await;
    let (admin, id) = league_night(&app).await;
    let relay = relay_for(&app);
    with_browser(
        SERVER_FAILS,
        "outbox-server-fails",
        WHOLE_TEST,
        async |browser| {
            browser.set_window_size(390, 844).await?;
            open_console(browser, &relay, "sam", id).await?;
            let base = api_match(&admin, id).await?["version"]
                .as_i64()
                .context("version")?;

            relay.fail_with(503);
            keep_a_hand(browser, &FIRST, 1).await?;
            until_banner(browser, "1 waiting to send").await?;
            // The score at the top is not the match as the form counts it: said next to it.
            let note = browser.text_of("#outbox-score-note").await?;
            ensure!(
                note.contains("1 hand waiting to send"),
                "next to the score: {note:?}"
            );
            let bar = browser.text_of("#bar-score").await?;
            ensure!(
                bar.contains("+1 to send"),
                "the header's score says it too: {bar:?}"
            );
            ensure!(
                browser.text_of("#hand-title").await? == "Hand 2",
                "the form is for the next hand"
            );
            ensure!(relay.failed() >= 1, "the hand met the 503");
            let kept = stored(browser, id).await?;
            ensure!(
                kept.len() == 1 && kept[0]["state"] == json!("waiting"),
                "kept, waiting: {kept:?}"
            );

            relay.fail_with(500);
            let failed = relay.failed();
            let deadline = Instant::now() + WAIT;
            while relay.failed() == failed {
                ensure!(Instant::now() < deadline, "no second try");
                sleep(Duration::from_millis(100)).await;
            }
            ensure!(
                stored(browser, id).await?.len() == 1,
                "still kept after the 500"
            );
            ensure!(
                hands_of(&api_match(&admin, id).await?).is_empty(),
                "nothing reached the app"
            );

            relay.fail_with(0);
            let view = until_hands(&admin, id, 1).await?;
            ensure!(hands_of(&view)[0] == FIRST.api(), "the hand as typed");
            until(
                browser,
                "the console shows the recorded hand",
                "const o = document.getElementById('outbox'); \
             return !!o && o.dataset.count === '0' && document.readyState === 'complete' \
               && !!document.getElementById('score-a') \
               && document.getElementById('score-a').textContent.trim() === '101';",
            )
            .await?;
            ensure!(
                stored(browser, id).await?.is_empty(),
                "nothing kept any more"
            );
            ensure!(
                browser
                    .execute(
                        "return document.getElementById('outbox-banner').hidden;",
                        json!([])
                    )
                    .await?
                    == json!(true),
                "all sent, online: no banner"
            );
            sleep(Duration::from_secs(3)).await;
            let view = api_match(&admin, id).await?;
            ensure!(
                hands_of(&view).len() == 1 && view["version"] == json!(base + 1),
                "recorded exactly once: {} hands, version {}",
                hands_of(&view).len(),
                view["version"]
            );
            Ok(())
        },
    )
    .await;
}

const NOT_FOUND_KEPT: &str = "browser_outbox::a_hand_answered_404_is_kept_and_shown_never_dropped";

/// A kept hand whose next try is answered 404 (or 400: the same path) is not dropped: it
/// stays on the phone as refused, at the top of the page with the status, Edit and Discard.
/// Edit puts the hand back into the hand form, numbered as it was; sent again, it is recorded.
#[actix_web::test]
async fn a_hand_answered_404_is_kept_and_shown_never_dropped() {
    let app = spawn_app().await;
    let (admin, id) = league_night(&app).await;
    let relay = relay_for(&app);
    with_browser(NOT_FOUND_KEPT, "outbox-404-kept", WHOLE_TEST, async |browser| {
        open_console(browser, &relay, "sam", id).await?;
        relay.cut();
        keep_a_hand(browser, &FIRST, 1).await?;
        relay.fail_with(404);
        until(
            browser,
            "the 404 is on top",
            "const top = document.getElementById('outbox-refused'); \
             return !!top && !top.hidden && top.textContent.includes('refused (404)') \
               && !!top.querySelector('button.outbox-edit');",
        )
        .await?;
        relay.fail_with(0);
        relay.restore();
        sleep(Duration::from_secs(3)).await;
        let kept = stored(browser, id).await?;
        ensure!(
            kept.len() == 1 && kept[0]["state"] == json!("refused"),
            "kept as refused, not sent again by itself: {kept:?}"
        );
        ensure!(
            hands_of(&api_match(&admin, id).await?).is_empty(),
            "nothing recorded"
        );
        // The supervisor scrolls up to it (the banner stays on top of what passes under it).
        browser
            .execute(
                "document.getElementById('outbox-refused').scrollIntoView({ block: 'center' }); return true;",
                json!([]),
            )
            .await?;
        let edit = browser.find("#outbox-refused button.outbox-edit").await?;
        browser.click(&edit).await?;
        until(
            browser,
            "Edit puts the hand back into the form",
            "const f = document.getElementById('hand-form'); \
             return f.getAttribute('data-outbox-editing') !== null \
               && f.elements['a_bid0'].value === '4' && f.elements['b_tricks1'].value === '4' \
               && document.getElementById('hand-title').textContent === 'Hand 1';",
        )
        .await?;
        // Sent again as it is: recorded once.
        let record = browser.find("#record").await?;
        browser.click(&record).await?;
        let view = until_hands(&admin, id, 1).await?;
        ensure!(hands_of(&view)[0] == FIRST.api(), "the hand as typed");
        Ok(())
    })
    .await;
}

const REFUSED_ON_TOP: &str =
    "browser_outbox::a_refused_entry_is_shown_on_top_with_edit_and_other_matches_still_send";

/// On a phone whose Wi-Fi lost its way out: a hand kept on match 2, then on match 1 a lineup
/// by student IDs that are on no roster. When the connection returns (on match 1's page),
/// the server refuses the lineup (422): it is kept, at the top of the page with the
/// server's message, Edit and Discard (and passes axe); match 2's hand is recorded all the
/// same. Edit puts the typed student IDs back into the lineup form.
#[actix_web::test]
async fn a_refused_entry_is_shown_on_top_with_edit_and_other_matches_still_send() {
    let app = spawn_app().await;
    let (admin, ids) = league_night_of(&app, 2).await;
    let (one, two) = (ids[0], ids[1]);
    let relay = relay_for(&app);
    with_browser(
        REFUSED_ON_TOP,
        "outbox-refused-on-top",
        WHOLE_TEST,
        async |browser| {
            browser.set_window_size(390, 844).await?;
            open_console(browser, &relay, "sam", one).await?;
            open_match(browser, &relay, two).await?;

            relay.cut();
            keep_a_hand(browser, &FIRST, 1).await?;
            browser
                .goto(&relay.url(&format!("/supervise/matches/{one}")))
                .await?;
            browser.wait_for("#hand-form", WAIT).await?;
            until_banner(browser, "1 waiting to send").await?;
            browser
                .execute(
                    "document.getElementById('lineup-a-student-id1').value = 'ZZ9001'; \
                 document.getElementById('lineup-a-student-id2').value = 'ZZ9002'; \
                 document.getElementById('lineup-a-submit').click(); return true;",
                    json!([]),
                )
                .await?;
            until(
            browser,
            "the lineup is kept on match 1",
            "const o = document.getElementById('outbox'); return !!o && o.dataset.count === '1';",
        )
        .await?;
            until_banner(browser, "2 waiting to send").await?;

            relay.restore();
            until_hands(&admin, two, 1).await?;
            until(
                browser,
                "the refused lineup is on top with the server's message and Edit",
                "const top = document.getElementById('outbox-refused'); \
             return !!top && !top.hidden \
               && top.compareDocumentPosition(document.getElementById('match-title')) \
                  === Node.DOCUMENT_POSITION_FOLLOWING \
               && !!top.querySelector('.outbox-refused-message') \
               && top.querySelector('.outbox-refused-message').textContent.trim().length > 0 \
               && !!top.querySelector('button.outbox-edit') \
               && !!top.querySelector('button.outbox-discard');",
            )
            .await?;
            let message = browser
                .text_of("#outbox-refused .outbox-refused-message")
                .await?;
            ensure!(
                !message.starts_with("refused ("),
                "the server's own words: {message}"
            );
            until_banner(browser, "1 entry needs you").await?;
            let kept = stored(browser, one).await?;
            ensure!(
                kept.len() == 1
                    && kept[0]["state"] == json!("refused")
                    && kept[0]["kind"] == json!("lineup"),
                "the lineup is kept, refused: {kept:?}"
            );
            ensure!(
                api_match(&admin, one).await?["lineup"]["a"].is_null(),
                "no lineup recorded"
            );
            let violations = browser.axe_violations().await?;
            ensure!(violations.is_empty(), "axe: {violations:?}");

            let edit = browser.find("#outbox-refused button.outbox-edit").await?;
            browser.click(&edit).await?;
            until(
                browser,
                "Edit puts the typed student IDs back into the form",
                "const f = document.getElementById('lineup-a-student-id1'); \
             return !!f && f.value === 'ZZ9001' \
               && document.getElementById('lineup-a-student-id2').value === 'ZZ9002' \
               && !!f.form.getAttribute('data-outbox-editing');",
            )
            .await?;
            let violations = browser.axe_violations().await?;
            ensure!(violations.is_empty(), "axe, editing: {violations:?}");
            Ok(())
        },
    )
    .await;
}

const TWO_TABS: &str = "browser_outbox::two_tabs_of_one_match_record_each_hand_once";

/// Two tabs of the same match on one phone, both with the outbox: two hands kept (one typed
/// in each tab) are recorded once each, in order, when the connection returns.
#[actix_web::test]
async fn two_tabs_of_one_match_record_each_hand_once() {
    let app = spawn_app().await;
    let (admin, id) = league_night(&app).await;
    let relay = relay_for(&app);
    with_browser(TWO_TABS, "outbox-two-tabs", WHOLE_TEST, async |browser| {
        open_console(browser, &relay, "sam", id).await?;
        let base = api_match(&admin, id).await?["version"]
            .as_i64()
            .context("version")?;
        let first = browser.tab().await?;
        let second = browser.new_tab().await?;
        browser.switch_to(&second).await?;
        open_match(browser, &relay, id).await?;

        relay.cut();
        browser.switch_to(&first).await?;
        keep_a_hand(browser, &FIRST, 1).await?;
        browser.switch_to(&second).await?;
        // The other tab shows the hand kept in the first, and types the next after it.
        until(
            browser,
            "the second tab counts the first tab's hand",
            "const o = document.getElementById('outbox'); return !!o && o.dataset.count === '1';",
        )
        .await?;
        keep_a_hand(browser, &SECOND, 2).await?;
        let kept = stored(browser, id).await?;
        ensure!(
            kept.len() == 2 && kept[1]["base"] == json!(base + 1) && kept[1]["hand"] == json!(2),
            "the second tab's hand comes after the first: {kept:?}"
        );

        relay.restore();
        let view = until_hands(&admin, id, 2).await?;
        ensure!(
            hands_of(&view) == vec![FIRST.api(), SECOND.api()],
            "in order: {:?}",
            hands_of(&view)
        );
        sleep(Duration::from_secs(4)).await;
        let view = api_match(&admin, id).await?;
        ensure!(
            hands_of(&view).len() == 2 && view["version"] == json!(base + 2),
            "each hand once: {} hands, version {}",
            hands_of(&view).len(),
            view["version"]
        );
        Ok(())
    })
    .await;
}

const OTHER_USER: &str =
    "browser_outbox::another_user_on_the_phone_never_sends_the_first_users_entries";

/// Sam keeps a hand (no way out); sam's session ends on the phone and kim logs in, in
/// another tab, while sam's console stays open in the first. Neither kim's console nor
/// sam's old tab (kim's session under it now) sends sam's hand; it stays on the phone for
/// sam, and is recorded once sam logs in again.
#[actix_web::test]
async fn another_user_on_the_phone_never_sends_the_first_users_entries() {
    let app = spawn_app().await;
    let (admin, id) = league_night(&app).await;
    app.user("kim", Role::Supervisor).await;
    let response = admin
        .post(
            "/api/v1/leagues/fall/supervisors",
            &json!({"username": "kim"}),
        )
        .await;
    assert_eq!(response.status(), 204);
    let relay = relay_for(&app);
    with_browser(OTHER_USER, "outbox-other-user", WHOLE_TEST, async |browser| {
        open_console(browser, &relay, "sam", id).await?;
        relay.cut();
        keep_a_hand(browser, &FIRST, 1).await?;
        let sams = browser.tab().await?;

        // The new tab shows a page of the site (a 503 from the relay: nothing reaches the
        // app yet) so that its cookies can be deleted: sam's session is over on the phone.
        relay.fail_with(503);
        let other = browser.new_tab().await?;
        browser.switch_to(&other).await?;
        browser.goto(&relay.url("/leagues")).await?;
        browser.delete_cookies().await?;
        relay.fail_with(0);
        relay.restore();
        open_console(browser, &relay, "kim", id).await?;
        ensure!(
            browser.execute(
                "return document.querySelector('header a[data-user]').getAttribute('data-user');",
                json!([])
            )
            .await?
                == json!("kim"),
            "kim's console"
        );
        // Sam's tab tries every few seconds meanwhile, with kim's session under it.
        sleep(Duration::from_secs(8)).await;
        ensure!(
            hands_of(&api_match(&admin, id).await?).is_empty(),
            "sam's hand was sent in kim's session"
        );
        let kept = stored(browser, id).await?;
        ensure!(kept.len() == 1, "sam's hand is kept for sam: {kept:?}");
        ensure!(
            browser.execute(
                "const o = document.getElementById('outbox'); return !o || o.dataset.count === '0';",
                json!([])
            )
            .await?
                == json!(true),
            "kim's console lists none of sam's entries"
        );
        browser.switch_to(&sams).await?;
        until(
            browser,
            "sam's tab says to log in again",
            "const s = document.getElementById('outbox-status'); \
             return !!s && s.textContent.includes('log in again');",
        )
        .await?;

        // Sam again: the hand is recorded, once.
        browser.switch_to(&other).await?;
        browser.delete_cookies().await?;
        open_console(browser, &relay, "sam", id).await?;
        let view = until_hands(&admin, id, 1).await?;
        ensure!(hands_of(&view)[0] == FIRST.api(), "sam's hand as typed");
        sleep(Duration::from_secs(3)).await;
        ensure!(
            hands_of(&api_match(&admin, id).await?).len() == 1,
            "recorded once"
        );
        Ok(())
    })
    .await;
}

const WORKER_UPDATE: &str =
    "browser_outbox::a_service_worker_update_while_hands_wait_still_sends_each_once";

/// Two hands kept offline; meanwhile a new version of the service worker is installed and
/// takes over the page (registered from another script URL: the browser installs it,
/// it skips waiting and claims the page). Back online, each hand is recorded once, and a
/// reload sends nothing more.
#[actix_web::test]
async fn a_service_worker_update_while_hands_wait_still_sends_each_once() {
    let app = spawn_app().await;
    let (admin, id) = league_night(&app).await;
    let relay = relay_for(&app);
    with_browser(WORKER_UPDATE, "outbox-worker-update", WHOLE_TEST, async |browser| {
        open_console(browser, &relay, "sam", id).await?;
        let base = api_match(&admin, id).await?["version"]
            .as_i64()
            .context("version")?;
        go_offline(browser, &relay).await?;
        keep_a_hand(browser, &FIRST, 1).await?;
        keep_a_hand(browser, &SECOND, 2).await?;
        until_banner(browser, "Offline — 2 waiting to send").await?;

        // The worker's own fetches get through again; the page still has no connection.
        relay.restore();
        let before = browser
            .execute(
                "return navigator.serviceWorker.controller.scriptURL;",
                json!([]),
            )
            .await?;
        browser
            .execute(
                "window.__swUpdated = false; \
                 navigator.serviceWorker.addEventListener('controllerchange', \
                   () => { window.__swUpdated = true; }); \
                 navigator.serviceWorker.register('/supervise/sw.js?update=2', { scope: '/supervise' }); \
                 return true;",
                json!([]),
            )
            .await?;
        until(
            browser,
            "the new worker controls the page",
            "return window.__swUpdated === true \
               && navigator.serviceWorker.controller.scriptURL.includes('update=2');",
        )
        .await?;
        ensure!(
            !before.to_string().contains("update=2"),
            "the page was controlled by the first worker: {before}"
        );
        ensure!(
            hands_of(&api_match(&admin, id).await?).is_empty(),
            "nothing sent while the page is offline"
        );
        ensure!(stored(browser, id).await?.len() == 2, "both hands still kept");

        browser.clear_network_conditions().await?;
        let view = until_hands(&admin, id, 2).await?;
        ensure!(
            hands_of(&view) == vec![FIRST.api(), SECOND.api()],
            "both, in order"
        );
        browser.refresh().await?;
        browser.wait_for("#hand-form", WAIT).await?;
        sleep(Duration::from_secs(3)).await;
        let view = api_match(&admin, id).await?;
        ensure!(
            hands_of(&view).len() == 2 && view["version"] == json!(base + 2),
            "each hand once: {} hands, version {}",
            hands_of(&view).len(),
            view["version"]
        );
        ensure!(stored(browser, id).await?.is_empty(), "nothing kept");
        Ok(())
    })
    .await;
}

const OLD_FORMAT: &str = "browser_outbox::entries_kept_by_the_first_outbox_are_still_sent_once";

/// A phone updated in the middle of a night: its localStorage holds what the first outbox
/// (one script, `outbox.js`) kept, in its format: a lineup without an idempotency key, then
/// a hand with one. The new outbox reads them and sends both, in order, each once.
#[actix_web::test]
async fn entries_kept_by_the_first_outbox_are_still_sent_once() {
    let app = spawn_app().await;
    let (admin, id) = league_night(&app).await;
    let relay = relay_for(&app);
    with_browser(OLD_FORMAT, "outbox-old-format", WHOLE_TEST, async |browser| {
        open_console(browser, &relay, "sam", id).await?;
        let base = api_match(&admin, id).await?["version"]
            .as_i64()
            .context("version")?;
        // As outbox.js wrote them (its storage key, its item fields), on this match.
        let names = browser
            .execute(
                "const one = document.getElementById('lineup-a-player1'); \
                 const two = document.getElementById('lineup-a-player2'); \
                 const v = String(arguments[1]); \
                 const hand = [['expected_version', v], ['idempotency_key', 'page-key'], \
                   ['a_bid0', '4'], ['a_bid1', 'nil'], ['a_tricks0', '5'], ['a_tricks1', '0'], \
                   ['b_bid0', '3'], ['b_bid1', '3'], ['b_tricks0', '4'], ['b_tricks1', '4']]; \
                 const data = { seen: null, items: [ \
                   { id: 'old-1', kind: 'lineup', action: '/supervise/matches/' + arguments[0] + '/lineup', \
                     number: null, fields: [['expected_version', v], ['team', 'a'], \
                       ['player1', one.options[2].value], ['player2', two.options[1].value], \
                       ['student_id1', ''], ['student_id2', '']], \
                     key: null, base: arguments[1], bumps: 0, hand: null, \
                     summary: 'Team 1\\'s lineup', state: 'waiting', message: '', at: 1 }, \
                   { id: 'old-2', kind: 'hand', action: '/supervise/matches/' + arguments[0] + '/hands', \
                     number: null, fields: hand, key: 'old-outbox-hand-key', base: arguments[1], bumps: 1, \
                     hand: 1, summary: 'a hand', state: 'waiting', message: '', at: 2 } ] }; \
                 localStorage.setItem('spades-im.outbox.v1.sam.' + arguments[0], JSON.stringify(data)); \
                 return [one.options[2].text, two.options[1].text];",
                json!([id.to_string(), base]),
            )
            .await?;
        browser.refresh().await?;
        let view = until_hands(&admin, id, 1).await?;
        ensure!(hands_of(&view) == vec![FIRST.api()], "the kept hand");
        let seated: Vec<Value> = view["lineup"]["a"]
            .as_array()
            .map(|s| s.iter().map(|p| p["name"].clone()).collect())
            .unwrap_or_default();
        ensure!(json!(seated) == names, "the kept lineup: {seated:?}, not {names}");
        until(
            browser,
            "nothing waits any more",
            "const o = document.getElementById('outbox'); \
             return !!o && o.dataset.count === '0' && document.readyState === 'complete';",
        )
        .await?;
        ensure!(stored(browser, id).await?.is_empty(), "nothing kept");
        sleep(Duration::from_secs(3)).await;
        let view = api_match(&admin, id).await?;
        ensure!(
            hands_of(&view).len() == 1 && view["version"] == json!(base + 2),
            "each once: {} hands, version {}",
            hands_of(&view).len(),
            view["version"]
        );
        Ok(())
    })
    .await;
}
