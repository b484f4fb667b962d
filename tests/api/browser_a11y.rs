//! Accessibility in headless Chromium: axe-core (vendored, see
//! [`crate::webdriver::Browser::axe_violations`]) over every page of the service and its empty
//! and error states, for an anonymous reader, a supervisor and an admin, with zero violations
//! at every impact level; and a whole hand entered on the console with the keyboard alone.
//!
//! The pages checked are printed (`cargo test --test api browser_a11y -- --nocapture`), so a
//! page added without being added here shows as missing from the list. docs/accessibility.md
//! says which WCAG criteria these checks cover.

use std::time::Duration;

use anyhow::{Context, bail, ensure};
use serde_json::{Value, json};
use spades_im::service::Role;

use crate::bracket_page::{bracket, first_scheduled, league, play_a_wins, playoffs};
use crate::browser::with_browser;
use crate::browser_outbox::{go_offline, go_online, open_console, relay_for};
use crate::helpers::{
    PASSWORD, TestApp, json_with_status, manual_clock, spawn_app, spawn_app_with_clock,
};
use crate::webdriver::Browser;

const WAIT: Duration = Duration::from_secs(30);
const WHOLE_TEST: Duration = Duration::from_secs(420);

/// The page's targets (links, buttons, form controls, summaries) smaller than
/// `arguments[0]` CSS pixels either way, as "tag#id.class "text" W×H". Links inside a sentence
/// are left out (WCAG 2.5.8's inline exception: the line height sets their size), as are
/// hidden elements and a checkbox or radio inside a label that is itself big enough.
const SMALL_TARGETS: &str = r#"
var least = arguments[0], out = [];
var all = document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea, summary');
for (var i = 0; i < all.length; i++) {
  var el = all[i], r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0 || el.closest('[hidden], details:not([open]) > :not(summary)')) continue;
  var style = getComputedStyle(el);
  if (style.visibility === 'hidden') continue;
  if (el.tagName === 'A' && style.display === 'inline') {
    var block = el.parentElement;
    var text = (block.textContent || '').replace(/\s+/g, ' ').trim();
    var own = (el.textContent || '').replace(/\s+/g, ' ').trim();
    if (text.length > own.length + 3) continue;
  }
  var box = r;
  if ((el.type === 'checkbox' || el.type === 'radio') && el.closest('label')) {
    box = el.closest('label').getBoundingClientRect();
  }
  if (box.width + 0.5 < least || box.height + 0.5 < least) {
    out.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
      (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ').join('.') : '') +
      ' "' + (el.textContent || el.name || '').trim().slice(0, 30) + '" ' +
      Math.round(box.width) + 'x' + Math.round(box.height));
  }
}
return out;
"#;

/// The error a form sent with a mistake comes back with: its element, and whether the page
/// gives it the focus.
#[derive(Clone, Copy)]
struct Shown {
    css: &'static str,
    focused: bool,
}

/// An error summary, focused when the page loads (`autofocus`, or `console.js`).
const fn summary(css: &'static str) -> Shown {
    Shown { css, focused: true }
}

/// A message next to the form or field, which the page does not focus.
const fn message(css: &'static str) -> Shown {
    Shown {
        css,
        focused: false,
    }
}

/// `true` when the focus is on the element `arguments[0]` or inside it; otherwise what has it.
const HAS_FOCUS: &str = "
var e = document.querySelector(arguments[0]), a = document.activeElement;
if (e && a && (e === a || e.contains(a))) { return true; }
return 'the focus is on ' + (a ? a.tagName.toLowerCase() + (a.id ? '#' + a.id : '') : 'nothing');
";

/// Collects the axe verdicts of every page visited.
struct Audit<'a> {
    browser: &'a Browser,
    app: &'a TestApp,
    checked: Vec<String>,
    failures: Vec<String>,
}

impl Audit<'_> {
    /// Checks the page the browser shows now, as `what`.
    async fn here(&mut self, what: &str) -> anyhow::Result<()> {
        self.browser.wait_for("body", WAIT).await?;
        let found = self.browser.axe_violations().await?;
        let url = self.browser.current_url().await?;
        let path = url.strip_prefix(&self.app.address).unwrap_or(&url);
        self.checked.push(format!("{what}: {path}"));
        for v in found {
            self.failures.push(format!("{what} ({path}): {v}"));
        }
        // The console is used with a thumb at a card table: 44 px there, 24 px elsewhere.
        let least = if path.starts_with("/supervise") {
            44
        } else {
            24
        };
        let small = self.browser.execute(SMALL_TARGETS, json!([least])).await?;
        for target in small.as_array().into_iter().flatten() {
            self.failures.push(format!(
                "{what} ({path}): target under {least} px: {target}"
            ));
        }
        Ok(())
    }

    /// Opens `path` and checks it.
    async fn page(&mut self, what: &str, path: &str) -> anyhow::Result<()> {
        self.browser.goto(&self.app.url(path)).await?;
        self.here(what).await
    }

    /// Runs `script` (which submits a form on the page with a mistake) and checks the page it
    /// leads to, once that page shows the error `shown` is about: the page must have been
    /// replaced, and the error be on it, with the focus when `shown.focused` (an error
    /// summary, which the page focuses on load), before axe audits that state. (Planted: the
    /// console's error summary without `autofocus` and `console.js`'s `focus()` fails at
    /// "console, a hand with errors".)
    async fn submit(&mut self, what: &str, script: &str, shown: Shown) -> anyhow::Result<()> {
        let before = self.browser.find("html").await?;
        self.browser.execute(script, json!([])).await?;
        // Wait until the old document is gone.
        let mut replaced = false;
        for _ in 0..150 {
            if self.browser.attribute(&before, "lang").await.is_err() {
                replaced = true;
                break;
            }
            actix_web::rt::time::sleep(Duration::from_millis(100)).await;
        }
        ensure!(replaced, "{what}: the form was not sent (the page stayed)");
        let error = self
            .browser
            .wait_for(shown.css, WAIT)
            .await
            .with_context(|| format!("{what}: the page shows no error ({})", shown.css))?;
        ensure!(
            !self.browser.text(&error).await?.trim().is_empty(),
            "{what}: the error ({}) says nothing",
            shown.css
        );
        if shown.focused {
            let mut focused = Value::Null;
            for _ in 0..50 {
                focused = self.browser.execute(HAS_FOCUS, json!([shown.css])).await?;
                if focused == true {
                    break;
                }
                actix_web::rt::time::sleep(Duration::from_millis(100)).await;
            }
            ensure!(
                focused == true,
                "{what}: the error ({}) does not have the focus; {focused}",
                shown.css
            );
        }
        self.here(what).await
    }

    fn verdict(&self, who: &str) -> anyhow::Result<()> {
        eprintln!(
            "axe-core checked {} page states as {who}:\n  {}",
            self.checked.len(),
            self.checked.join("\n  ")
        );
        if !self.failures.is_empty() {
            bail!(
                "{} axe-core violations:\n{}",
                self.failures.len(),
                self.failures.join("\n")
            );
        }
        Ok(())
    }
}

async fn login(browser: &Browser, app: &TestApp, name: &str) -> anyhow::Result<()> {
    browser.goto(&app.url("/login")).await?;
    let user = browser.wait_for("#username", WAIT).await?;
    browser.send_keys(&user, name).await?;
    let password = browser.find("#password").await?;
    browser.send_keys(&password, PASSWORD).await?;
    let button = browser.find("#login-button").await?;
    browser.click_and_wait_for_page(&button, WAIT).await?;
    let url = browser.current_url().await?;
    ensure!(!url.contains("/login"), "still on the login page: {url}");
    Ok(())
}

/// The ids of the demo season's matches by status, from the JSON API.
async fn demo_matches(app: &TestApp) -> anyhow::Result<Vec<Value>> {
    let r = app
        .get(&format!(
            "/api/v1/leagues/{}/matches",
            spades_im::demo::SLUG
        ))
        .await;
    let body = json_with_status(r, 200, "the demo's matches").await;
    let list = body
        .get("matches")
        .and_then(Value::as_array)
        .or_else(|| body.as_array())
        .context("a list of matches")?;
    Ok(list.clone())
}

fn with_status(matches: &[Value], status: &str) -> anyhow::Result<i64> {
    matches
        .iter()
        .find(|m| m["status"] == status)
        .and_then(|m| m["id"].as_i64())
        .with_context(|| format!("a demo match {status}"))
}

/// Sets the form fields `(name, value)` of the form holding `#{button}` and clicks it.
fn fill_and_click(button: &str, fields: &[(&str, &str)]) -> String {
    let mut script = String::from("var f = document.getElementById('") + button + "').form;";
    for (name, value) in fields {
        script += &format!("f.elements['{name}'].value = '{value}';");
    }
    script + &format!("document.getElementById('{button}').click();")
}

#[actix_web::test]
async fn every_page_passes_axe() {
    const TEST: &str = "browser_a11y::every_page_passes_axe";
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    with_browser(TEST, "a11y", WHOLE_TEST, async |browser| {
        let mut audit = Audit {
            browser,
            app: &app,
            checked: Vec::new(),
            failures: Vec::new(),
        };

        // An empty install, as an anonymous reader and as the first admin.
        audit.page("home, empty", "/").await?;
        audit.page("leagues, none", "/leagues").await?;
        audit.page("scoreboard, nothing in play", "/scoreboard").await?;
        audit.page("TV scoreboard, nothing in play", "/scoreboard?tv=1").await?;
        audit.page("not found", "/leagues/no-such-league").await?;
        audit.page("login", "/login").await?;
        audit
            .submit(
                "login, wrong password",
                &fill_and_click(
                    "login-button",
                    &[("username", "coord"), ("password", "not it")],
                ),
                message("#login-error"),
            )
            .await?;
        login(browser, &app, "coord").await?;
        audit.page("admin dashboard, empty", "/admin").await?;
        audit.page("tonight, no matches", "/supervise").await?;
        ensure!(
            browser.exists("#no-matches a[href=\"/admin\"]").await?,
            "an admin with no matches is shown the way to the admin pages"
        );

        // A season (the demo) and a 6-team playoff with a match played.
        spades_im::demo::load(&app.db).await?;
        league(&admin, "cup", 6).await;
        playoffs(&admin, "cup", json!({"format": "single_elimination"})).await;
        let b = bracket(&app, "cup").await;
        let first = first_scheduled(&b).context("a playable bracket match")?;
        play_a_wins(&admin, first["match_id"].as_i64().context("its id")?).await;
        let r = admin
            .post(
                "/api/v1/leagues",
                &json!({"slug": "empty", "name": "Spring League", "rules": {"regular": "unc-im-300"}}),
            )
            .await;
        json_with_status(r, 201, "an empty league").await;
        let matches = demo_matches(&app).await?;
        let live = with_status(&matches, "in_progress")?;
        let done = with_status(&matches, "complete")?;
        let scheduled = with_status(&matches, "scheduled")?;
        let slug = spades_im::demo::SLUG;
        let team = matches[0]["team_a"]["id"]
            .as_i64()
            .context("a team id")?;
        let roster = admin.get(&format!("/api/v1/teams/{team}/roster")).await;
        let player = json_with_status(roster, 200, "the team's roster").await["players"][0]["id"]
            .as_i64()
            .context("a player id")?;

        // The admin pages.
        audit.page("admin dashboard", "/admin").await?;
        audit.page("admin league", &format!("/admin/leagues/{slug}")).await?;
        audit.page("admin league, empty", "/admin/leagues/empty").await?;
        audit.page("admin delete a league", "/admin/leagues/empty/delete").await?;
        // A league with divisions: a team in one that has played (its division fixed), the
        // team forms' division selects, and the "Add a division" form refusing a taken name.
        league(&admin, "split", 2).await;
        let r = admin
            .post("/api/v1/leagues/split/divisions", &json!({"name": "Competitive"}))
            .await;
        let competitive = json_with_status(r, 201, "a division").await["id"].clone();
        let split = json_with_status(admin.get("/api/v1/leagues/split/teams").await, 200, "teams").await;
        let split_teams: Vec<i64> = split
            .get("teams")
            .unwrap_or(&split)
            .as_array()
            .context("the teams")?
            .iter()
            .filter_map(|t| t["id"].as_i64())
            .collect();
        let r = admin
            .patch(
                &format!("/api/v1/teams/{}", split_teams[0]),
                &json!({"division": competitive}),
            )
            .await;
        json_with_status(r, 200, "a team in a division").await;
        let m = admin.add_match("split", split_teams[0], split_teams[1], "Table 1").await;
        admin.start_match(m["id"].as_i64().context("the match")?).await;
        audit.page("admin league, divisions", "/admin/leagues/split").await?;
        audit
            .submit(
                "admin league, a division name taken",
                "var i = document.getElementById('division-name'); i.value = 'competitive'; \
                 i.form.requestSubmit ? i.form.requestSubmit() : i.form.submit();",
                summary("#form-error"),
            )
            .await?;
        audit
            .submit(
                "admin league, a team refused with its division picked",
                &format!(
                    "var s = document.getElementById('team-division'); s.value = '{competitive}'; \
                     var i = document.getElementById('team-name'); i.value = ''; \
                     i.form.requestSubmit ? i.form.requestSubmit() : i.form.submit();"
                ),
                summary("#form-error"),
            )
            .await?;
        // The pairing played again: a warning listed at the top of the schedule page.
        admin.add_match("split", split_teams[1], split_teams[0], "Table 2").await;
        audit.page("admin schedule, a standing warning", "/admin/leagues/split/schedule").await?;
        audit.page("admin league settings", &format!("/admin/leagues/{slug}/edit")).await?;
        // A blackout night the league keeps, on a night of its schedule: the blackout
        // warning and the "No league night on …" line.
        let r = admin
            .patch(
                &format!("/api/v1/leagues/{slug}"),
                &json!({"settings": {"blackouts": ["2026-11-24"]}}),
            )
            .await;
        json_with_status(r, 200, "a blackout night").await;
        audit.page("admin schedule", &format!("/admin/leagues/{slug}/schedule")).await?;
        audit.page("admin schedule, empty", "/admin/leagues/empty/schedule").await?;
        // The round-robin forms with a blackout night that is not a date, in a league with a
        // division (the "Pair teams" choice shown, "within each division" picked).
        let r = admin
            .post("/api/v1/leagues/empty/divisions", &json!({"name": "Open"}))
            .await;
        json_with_status(r, 201, "a division of the empty league").await;
        let bad_blackout = "var i = document.getElementById('schedule-blackouts'); i.value = '2026-02-30'; \
                            document.getElementById('schedule-within').value = 'division'; \
                            i.form.requestSubmit ? i.form.requestSubmit() : i.form.submit();";
        audit.page("admin league, a division, no schedule", "/admin/leagues/empty").await?;
        audit
            .submit("admin league, a bad blackout night", bad_blackout, summary("#form-error"))
            .await?;
        audit.page("admin schedule, a division, no schedule", "/admin/leagues/empty/schedule").await?;
        audit
            .submit("admin schedule, a bad blackout night", bad_blackout, summary("#form-error"))
            .await?;
        audit.page("admin schedule, all", &format!("/admin/leagues/{slug}/schedule?show=all")).await?;
        audit
            .submit(
                "admin schedule, a cancel to confirm",
                &format!(
                    "var f = document.getElementById('m{scheduled}-off'); f.closest('details').open = true; \
                     f.querySelector('input[name=reason]').value = 'no room'; \
                     var b = document.getElementById('m{scheduled}-off-cancel'); \
                     f.requestSubmit ? f.requestSubmit(b) : b.click();"
                ),
                message("#cancel-yes"),
            )
            .await?;
        // Back from the cancel's confirmation, not confirmed.
        audit.page("admin schedule, again", &format!("/admin/leagues/{slug}/schedule?show=all")).await?;
        audit
            .submit(
                "admin schedule, a delete to confirm",
                &format!(
                    "var f = document.getElementById('m{scheduled}-delete'); \
                     f.requestSubmit ? f.requestSubmit() : f.submit();"
                ),
                message("#delete-yes"),
            )
            .await?;
        audit.page("admin import", &format!("/admin/leagues/{slug}/import")).await?;
        // Past seasons: closing one, the next term, a whole league imported.
        audit.page("admin close the season", &format!("/admin/leagues/{slug}/archive")).await?;
        audit.page("admin next term", &format!("/admin/leagues/{slug}/clone")).await?;
        audit
            .submit(
                "admin next term, a bad slug",
                "var i = document.getElementById('clone-slug'); i.value = 'Not A Slug'; \
                 i.form.requestSubmit ? i.form.requestSubmit() : i.form.submit();",
                summary("#form-error"),
            )
            .await?;
        audit.page("admin league import", "/admin/leagues/import").await?;
        audit
            .submit(
                "admin league import, not a document",
                "document.getElementById('import-slug').value = 'copy'; \
                 var i = document.getElementById('import-document'); i.value = '{'; \
                 i.form.requestSubmit ? i.form.requestSubmit() : i.form.submit();",
                summary("#form-error"),
            )
            .await?;
        audit.page("admin playoffs, eligibility", &format!("/admin/leagues/{slug}/playoffs")).await?;
        audit.page("admin playoffs, bracket", "/admin/leagues/cup/playoffs").await?;
        audit
            .submit(
                "admin playoffs, a round refused",
                "var i = document.querySelector('#round-winners-1 input[name^=\"table-\"]'); \
                 i.value = 'T'.repeat(41); \
                 i.form.requestSubmit ? i.form.requestSubmit() : i.form.submit();",
                summary("#form-error"),
            )
            .await?;
        audit
            .submit(
                "admin playoffs, a round scheduled",
                "var i = document.querySelector('#round-winners-1 input[name^=\"table-\"]'); \
                 i.value = 'Table 1'; \
                 i.form.requestSubmit ? i.form.requestSubmit() : i.form.submit();",
                message("#notice"),
            )
            .await?;
        let r = admin.post("/api/v1/leagues/cup/archive", &json!({"unplayed": "cancel"})).await;
        json_with_status(r, 200, "archive the cup").await;
        audit.page("admin league, archived", "/admin/leagues/cup").await?;
        audit.page("admin playoffs, archived", "/admin/leagues/cup/playoffs").await?;
        audit.page("admin reopen the season", "/admin/leagues/cup/unarchive").await?;
        audit.page("league home, past season", "/leagues/cup").await?;
        let r = admin.post("/api/v1/leagues/cup/unarchive", &json!({})).await;
        json_with_status(r, 200, "unarchive the cup").await;
        audit.page("home, with leagues", "/").await?;
        audit.page("find a team", "/find?team=a").await?;
        audit.page("find a team, none", "/find?team=zebra").await?;
        audit.page("admin backup", "/admin/backup").await?;
        audit.page("admin audit log", "/admin/audit").await?;
        audit.page("admin audit log, a league", &format!("/admin/audit?league={slug}")).await?;
        audit.page("admin audit log, empty", "/admin/audit?action=none").await?;
        audit.page("admin audit log, a filter refused", "/admin/audit?match=x").await?;
        audit.page("admin notices, none", "/admin/notices").await?;
        stored_notices(&app, slug).await;
        audit.page("admin notices, one failed", "/admin/notices").await?;
        audit.page("admin notices, a filter refused", "/admin/notices?status=lost").await?;
        let players = format!("/admin/leagues/{slug}/teams/{team}/players");
        audit.page("admin players", &players).await?;
        audit
            .submit(
                "admin players, a bad student id",
                "document.getElementById('add-name').value = 'Newcomer'; \
                 var i = document.getElementById('add-student_id'); i.value = 'bad id!'; \
                 i.form.requestSubmit ? i.form.requestSubmit() : i.form.submit();",
                summary("#form-error"),
            )
            .await?;
        audit
            .submit(
                "admin players, an erasure not confirmed",
                "var f = document.querySelector('form[action$=\"/erase\"]'); \
                 f.closest('details').open = true; \
                 f.requestSubmit ? f.requestSubmit() : f.submit();",
                summary("#form-error"),
            )
            .await?;
        audit.page("admin players, again", &players).await?;
        audit
            .submit(
                "admin players, a playoff decision without a reason",
                "var i = document.querySelector('#eligibility-players input[name=reason]'); \
                 i.value = ''; i.form.requestSubmit ? i.form.requestSubmit() : i.form.submit();",
                summary("#form-error"),
            )
            .await?;
        audit.page("admin accounts", "/admin/users").await?;
        audit
            .submit(
                "admin accounts, a bad username",
                "var i = document.getElementById('add-username'); i.value = 'a b'; \
                 i.form.requestSubmit ? i.form.requestSubmit() : i.form.submit();",
                summary("#form-error"),
            )
            .await?;
        audit
            .page("admin reset a password", "/admin/users/coord/reset-password")
            .await?;
        audit.page("new league", "/admin/leagues/new").await?;
        // The rules controls open and one changed: the live preview redraws the rules in
        // words (the server's engine in the browser), and the open controls pass axe.
        audit
            .browser
            .execute(
                "document.querySelector('#stage-regular details').open = true; \
                 var i = document.getElementById('regular_target'); i.value = '500'; \
                 i.dispatchEvent(new Event('input', {bubbles: true}));",
                json!([]),
            )
            .await?;
        let rules_in_words = audit.browser.find("#regular-live").await?;
        let mut words = String::new();
        for _ in 0..50 {
            words = audit.browser.text(&rules_in_words).await?;
            if words.contains("500") {
                break;
            }
            actix_web::rt::time::sleep(Duration::from_millis(100)).await;
        }
        ensure!(words.contains("500"), "the live preview did not redraw: {words}");
        audit.here("new league, the rules controls open").await?;
        audit
            .submit(
                "new league, errors",
                "var f = document.querySelector('main form[method=post]'); \
                 f.querySelectorAll('input[type=text], input:not([type])').forEach(function (i) { i.value = ''; }); \
                 f.requestSubmit ? f.requestSubmit() : f.submit();",
                summary("#form-error"),
            )
            .await?;
        audit.page("account", "/account").await?;
        audit
            .submit(
                "account, wrong password",
                "var i = document.querySelector('input[type=password]'); var f = i.form; \
                 f.querySelectorAll('input[type=password]').forEach(function (p, n) { p.value = n ? 'short' : 'wrong'; }); \
                 f.requestSubmit ? f.requestSubmit() : f.submit();",
                message(".field-error[role=alert]"),
            )
            .await?;

        // The console.
        audit.page("tonight", "/supervise").await?;
        audit.page("console, in play", &format!("/supervise/matches/{live}")).await?;
        audit
            .submit(
                "console, a hand with errors",
                // The server's refusal page: `submit()` fires no submit event, so the hand
                // goes as without scripts (with them, the phone refuses it first: that state
                // is audited by browser_preview).
                &(fill_and_click("record", &[("a_tricks0", "9"), ("b_tricks0", "x")])
                    .replace("document.getElementById('record').click();", "f.submit();")),
                summary("[data-error-summary]"),
            )
            .await?;
        audit.page("console, scheduled (check-in)", &format!("/supervise/matches/{scheduled}")).await?;
        audit
            .submit(
                "console, a lineup not on the roster",
                &fill_and_click(
                    "lineup-a-submit",
                    &[("student_id1", "ZZ9001"), ("student_id2", "ZZ9002")],
                ),
                summary("[data-error-summary]"),
            )
            .await?;
        audit.page("forfeit confirmation", &format!("/supervise/matches/{scheduled}/forfeit")).await?;
        audit.page("console, complete (ratings)", &format!("/supervise/matches/{done}")).await?;
        audit.page("correct a hand", &format!("/supervise/matches/{done}/hands/1/edit")).await?;
        audit
            .submit(
                "correct a hand, no reason",
                &fill_and_click("record", &[("reason", "")]),
                summary("[data-error-summary]"),
            )
            .await?;

        // The public pages, logged in (the nav has more links) and then anonymous.
        let public = [
            ("home", "/".to_string()),
            ("leagues", "/leagues".to_string()),
            ("league", format!("/leagues/{slug}")),
            ("league, empty", "/leagues/empty".to_string()),
            ("standings", format!("/leagues/{slug}/standings")),
            ("standings, empty", "/leagues/empty/standings".to_string()),
            ("schedule", format!("/leagues/{slug}/schedule")),
            ("schedule, empty", "/leagues/empty/schedule".to_string()),
            (
                "schedule, whole season",
                format!("/leagues/{slug}/schedule?week=all"),
            ),
            ("teams", format!("/leagues/{slug}/teams")),
            ("team", format!("/leagues/{slug}/teams/{team}")),
            (
                "team, whole season",
                format!("/leagues/{slug}/teams/{team}?week=all"),
            ),
            ("player", format!("/leagues/{slug}/teams/{team}/players/{player}")),
            ("league rules", format!("/leagues/{slug}/rules")),
            ("match, in play", format!("/matches/{live}")),
            ("match, complete", format!("/matches/{done}")),
            ("match, scheduled", format!("/matches/{scheduled}")),
            ("scoreboard", "/scoreboard".to_string()),
            ("TV scoreboard", "/scoreboard?tv=1".to_string()),
            ("bracket", "/leagues/cup/bracket".to_string()),
            ("bracket, printable", "/leagues/cup/bracket/print".to_string()),
            ("bracket, none", format!("/leagues/{slug}/bracket")),
            ("rules", "/rules".to_string()),
            ("a preset's rules", "/rules/unc-im-300".to_string()),
            ("calculator", "/calculator".to_string()),
        ];
        for (what, path) in &public {
            audit.page(what, path).await?;
        }
        audit
            .submit(
                "calculator, a wrong hand",
                "var t = document.querySelector('main form input[name*=tricks]'); t.value = '14'; \
                 var f = t.form; f.requestSubmit ? f.requestSubmit() : f.submit();",
                summary("#form-error"),
            )
            .await?;
        // The team page's subscription link: shown by public.js, on this host.
        browser.goto(&app.url(&format!("/leagues/{slug}/teams/{team}"))).await?;
        let subscribe = browser
            .execute(
                "var a = document.getElementById('calendar-subscribe'); \
                 return a && !a.hidden ? a.href : null;",
                json!([]),
            )
            .await?;
        let host = app.address.trim_start_matches("http://");
        ensure!(
            subscribe == json!(format!("webcal://{host}/teams/{team}/calendar.ics")),
            "the subscription link: {subscribe}"
        );
        browser.goto(&app.url("/account")).await?;
        let logout = browser.find("header form[action=\"/logout\"] button").await?;
        browser.click_and_wait_for_page(&logout, WAIT).await?;
        for (what, path) in &public {
            audit.page(&format!("{what}, anonymous"), path).await?;
        }

        // The same on a phone (390×844): every public page, then the console's pages and its
        // states not seen above: a form sent from a stale page (the 409 conflict page) and
        // one without its CSRF token (403). The forms are sent with `submit()`, which the
        // outbox does not take over, so the server's own page is what is checked.
        browser.set_window_size(390, 844).await?;
        for (what, path) in &public {
            audit.page(&format!("{what}, phone"), path).await?;
            // One row of header (the brand and "Menu"), and the players' table whole.
            let fit = browser
                .execute(
                    "var h = document.querySelector('header.site'); \
                     var t = document.getElementById('team-stats'); \
                     var box = t ? t.parentElement : null; \
                     return [h ? Math.round(h.getBoundingClientRect().height) : 0, \
                             box ? box.scrollWidth - box.clientWidth : 0];",
                    json!([]),
                )
                .await?;
            let header = fit[0].as_i64().unwrap_or(999);
            let cut = fit[1].as_i64().unwrap_or(999);
            ensure!(
                path.contains("tv=1") || header <= 70,
                "{what}, phone: the header is {header} px high (one row is at most 70)"
            );
            ensure!(cut <= 0, "{what}, phone: the players' table is {cut} px too wide");
        }
        login(browser, &app, "coord").await?;
        let console = [
            ("tonight", "/supervise".to_string()),
            ("console, in play", format!("/supervise/matches/{live}")),
            ("console, scheduled (check-in)", format!("/supervise/matches/{scheduled}")),
            ("forfeit confirmation", format!("/supervise/matches/{scheduled}/forfeit")),
            ("console, complete (ratings)", format!("/supervise/matches/{done}")),
            ("correct a hand", format!("/supervise/matches/{done}/hands/1/edit")),
        ];
        for (what, path) in &console {
            audit.page(&format!("{what}, phone"), path).await?;
        }
        let hand = "var f = document.getElementById('hand-form'); \
                    [['a_bid0','4'],['a_bid1','3'],['b_bid0','3'],['b_bid1','3'], \
                     ['a_tricks0','4'],['a_tricks1','3'],['b_tricks0','3'],['b_tricks1','3']] \
                    .forEach(function (p) { f.elements[p[0]].value = p[1]; });";
        audit.page("console, in play, phone", &format!("/supervise/matches/{live}")).await?;
        audit
            .submit(
                "console, a stale form (409), phone",
                &format!("{hand} f.elements['expected_version'].value = '1'; f.submit();"),
                summary("#conflict"),
            )
            .await?;
        audit.page("console, in play, phone", &format!("/supervise/matches/{live}")).await?;
        audit
            .submit(
                "console, a form without its token (403), phone",
                &format!("{hand} f.elements['csrf'].remove(); f.submit();"),
                message("main h1"),
            )
            .await?;
        audit.verdict("anonymous, supervisor and admin")
    })
    .await;
}

#[actix_web::test]
async fn a_whole_hand_is_entered_with_the_keyboard_alone() {
    const TEST: &str = "browser_a11y::a_whole_hand_is_entered_with_the_keyboard_alone";
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.user("sue", Role::Supervisor).await;
    league(&admin, "fall", 2).await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/supervisors",
            &json!({"username": "sue"}),
        )
        .await;
    assert_eq!(r.status(), 204, "sue supervises fall");
    let r = admin
        .post(
            "/api/v1/leagues/fall/schedule",
            &json!({"format": "round_robin"}),
        )
        .await;
    let schedule = json_with_status(r, 201, "the schedule").await;
    let id = schedule["matches"][0]["id"].as_i64().expect("a match");

    with_browser(
        TEST,
        "keyboard",
        Duration::from_secs(120),
        async |browser| {
            login(browser, &app, "sue").await?;
            browser
                .goto(&app.url(&format!("/supervise/matches/{id}")))
                .await?;
            browser.wait_for("main", WAIT).await?;
            // Start the match: Tab to the start button, press Enter.
            tab_to(browser, "start", 40).await?;
            browser.press_keys("\u{E007}").await?;
            browser.wait_for("#a_bid0", WAIT).await?;
            // Bids 4, 3 / 3, 3 and tricks 5, 3 / 3, 2: typed into each control in turn,
            // reached with Tab only (a select takes the typed option's first characters).
            let seats = [
                ("a", 0, "4", "5"),
                ("a", 1, "3", "3"),
                ("b", 0, "3", "3"),
                ("b", 1, "3", "2"),
            ];
            for (team, seat, bid, took) in seats {
                tab_to(browser, &format!("{team}_bid{seat}"), 40).await?;
                browser.press_keys(bid).await?;
                tab_to(browser, &format!("{team}_tricks{seat}"), 5).await?;
                browser.press_keys(took).await?;
            }
            tab_to(browser, "record", 20).await?;
            browser.press_keys("\u{E007}").await?;
            // Recorded: the console shows hand 1 and the version moved on.
            let r = app.get(&format!("/api/v1/matches/{id}")).await;
            let mut body = json_with_status(r, 200, "the match").await;
            for _ in 0..100 {
                if body["hands"].as_array().is_some_and(|h| h.len() == 1) {
                    break;
                }
                actix_web::rt::time::sleep(Duration::from_millis(100)).await;
                let r = app.get(&format!("/api/v1/matches/{id}")).await;
                body = json_with_status(r, 200, "the match").await;
            }
            let hands = body["hands"].as_array().context("hands")?;
            ensure!(hands.len() == 1, "one hand recorded by keyboard: {body}");
            let bids: Vec<i64> = ["a", "b"]
                .iter()
                .flat_map(|t| {
                    hands[0]["hand"][*t]["bids"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default()
                })
                .filter_map(|b| b.as_i64())
                .collect();
            ensure!(bids == [4, 3, 3, 3], "bids as typed: {}", hands[0]);
            Ok(())
        },
    )
    .await;
}

/// Presses Tab until the element with id `id` has focus, at most `limit` times.
async fn tab_to(browser: &Browser, id: &str, limit: usize) -> anyhow::Result<()> {
    for _ in 0..limit {
        if browser.active_id().await? == id {
            return Ok(());
        }
        browser.press_keys("\u{E004}").await?;
    }
    bail!(
        "#{id} not reached with {limit} Tabs (focus is on #{})",
        browser.active_id().await?
    )
}

/// Wrong passwords for `username` from another address (127.0.0.7, no cookies) until the
/// username's budget for untrusted clients is spent: the browser's next try gets the 429 page.
async fn spend_the_login_budget(app: &TestApp, username: &str) -> anyhow::Result<()> {
    let other = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .local_address("127.0.0.7".parse::<std::net::IpAddr>()?)
        .build()?;
    for _ in 0..spades_im::service::people::throttle::USER_BUDGET {
        let r = other
            .post(app.url("/login"))
            .form(&[("username", username), ("password", "wrong")])
            .send()
            .await?;
        ensure!(r.status() == 401, "a wrong password: {}", r.status());
    }
    Ok(())
}

/// The real match ids of the bracket's matches with `status`.
fn bracket_matches(b: &Value, status: &str) -> Vec<i64> {
    b["matches"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["status"] == status)
        .filter_map(|m| m["match_id"].as_i64())
        .collect()
}

/// The page states reached only through a form (previews and confirmations), the 429 page,
/// the service worker's offline page and a bracket with a match in play, on a desktop window
/// and at 390×844.
#[actix_web::test]
async fn previews_confirmations_and_refusals_pass_axe() {
    const TEST: &str = "browser_a11y::previews_confirmations_and_refusals_pass_axe";
    // The clock stands still, so the login throttle's wait is not over before the browser
    // tries.
    let (clock, _time) = manual_clock("2026-11-24T19:00:00Z", chrono_tz::America::New_York);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.user("locked-desk", Role::Supervisor).await;
    app.user("locked-phone", Role::Supervisor).await;
    // A 4-team cup: both semifinals won by team A, the next matches started.
    league(&admin, "cup", 4).await;
    playoffs(
        &admin,
        "cup",
        json!({"format": "single_elimination", "third_place": true}),
    )
    .await;
    let semis = bracket_matches(&bracket(&app, "cup").await, "scheduled");
    for id in &semis {
        play_a_wins(&admin, *id).await;
    }
    for id in bracket_matches(&bracket(&app, "cup").await, "scheduled") {
        crate::bracket_page::start(&admin, id).await;
    }
    let semi = *semis.first().expect("a semifinal");
    let in_play = bracket_matches(&bracket(&app, "cup").await, "in_progress");
    // A 4-team double elimination played by team A up to its grand final, which is started:
    // correcting the winners' final then resets the grand final.
    league(&admin, "double", 4).await;
    playoffs(&admin, "double", json!({"format": "double_elimination"})).await;
    loop {
        let b = bracket(&app, "double").await;
        let next: Vec<i64> = b["matches"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| m["status"] == "scheduled" && m["bracket"] != "final")
            .filter_map(|m| m["match_id"].as_i64())
            .collect();
        if next.is_empty() {
            break;
        }
        for id in next {
            play_a_wins(&admin, id).await;
        }
    }
    let b = bracket(&app, "double").await;
    let grand_final = b["matches"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|m| m["bracket"] == "final" && m["status"] == "scheduled")
        .and_then(|m| m["match_id"].as_i64())
        .expect("the grand final");
    crate::bracket_page::start(&admin, grand_final).await;
    let winners_final = b["matches"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["bracket"] == "winners")
        .max_by_key(|m| m["round"].as_i64())
        .and_then(|m| m["match_id"].as_i64())
        .expect("the winners' final");
    // A league without playoffs, for the playoffs preview, with a schedule of future nights
    // for the move preview.
    league(&admin, "fall", 4).await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/schedule",
            &json!({"format": "round_robin", "start_date": "2027-01-05"}),
        )
        .await;
    json_with_status(r, 201, "a round robin").await;

    with_browser(TEST, "a11y-states", WHOLE_TEST, async |browser| {
        let mut audit = Audit {
            browser,
            app: &app,
            checked: Vec::new(),
            failures: Vec::new(),
        };
        for (size, locked) in [("desktop", "locked-desk"), ("phone", "locked-phone")] {
            if size == "phone" {
                browser.set_window_size(390, 844).await?;
            }
            let state = |what: &str| format!("{what}, {size}");

            // Too many wrong passwords: the 429 page.
            spend_the_login_budget(&app, locked).await?;
            audit.page(&state("login"), "/login").await?;
            audit
                .submit(
                    &state("login, too many tries (429)"),
                    &fill_and_click(
                        "login-button",
                        &[("username", locked), ("password", "wrong")],
                    ),
                    message("main h1"),
                )
                .await?;
            ensure!(
                browser.source().await?.contains("Too many failed logins"),
                "the 429 page says why"
            );
            login(browser, &app, "coord").await?;

            // The public bracket while the final and the third-place match are in play.
            audit.page(&state("bracket, matches in play"), "/leagues/cup/bracket").await?;
            // It follows the matches in play in place (no timed reload), and can be paused.
            browser
                .wait_for("#bracket-live[data-polled=\"1\"]", WAIT)
                .await
                .context("the bracket polls the scoreboard")?;
            ensure!(
                browser.exists(".live-controls:not([hidden]) #pause-live").await?,
                "the bracket's updates can be paused"
            );

            // A correction that changes a semifinal's winner: the reset confirmation.
            audit
                .page(&state("correct a hand, playoffs"), &format!("/supervise/matches/{semi}/hands/2/edit"))
                .await?;
            audit
                .submit(
                    &state("correct a hand, the bracket reset to confirm"),
                    &fill_and_click(
                        "record",
                        &[
                            ("a_bid0", "3"), ("a_bid1", "3"), ("a_tricks0", "1"), ("a_tricks1", "1"),
                            ("b_bid0", "4"), ("b_bid1", "3"), ("b_tricks0", "6"), ("b_tricks1", "5"),
                            ("reason", "seat 2 took 6"),
                        ],
                    )
                    .replace("document.getElementById('record').click();", "f.submit();"),
                    message("#confirm-reset"),
                )
                .await?;

            // The same for the winners' final of a double elimination: the grand final resets.
            audit
                .page(
                    &state("correct a hand, a winners' final"),
                    &format!("/supervise/matches/{winners_final}/hands/2/edit"),
                )
                .await?;
            audit
                .submit(
                    &state("correct a hand, the grand final reset to confirm"),
                    &fill_and_click(
                        "record",
                        &[
                            ("a_bid0", "3"), ("a_bid1", "3"), ("a_tricks0", "1"), ("a_tricks1", "1"),
                            ("b_bid0", "4"), ("b_bid1", "3"), ("b_tricks0", "6"), ("b_tricks1", "5"),
                            ("reason", "seat 2 took 6"),
                        ],
                    )
                    .replace("document.getElementById('record').click();", "f.submit();"),
                    message("#confirm-reset"),
                )
                .await?;
            ensure!(
                browser.exists(&format!("#reset-{grand_final}")).await?,
                "the grand final is among the matches that reset"
            );

            // The league form's preview.
            audit.page(&state("new league"), "/admin/leagues/new").await?;
            audit
                .submit(
                    &state("new league, the preview"),
                    "var f = document.querySelector('main form[method=post]'); \
                     f.elements['name'].value = 'Winter League'; f.elements['slug'].value = 'winter'; \
                     f.requestSubmit ? f.requestSubmit() : f.submit();",
                    message("#tiebreak-preview"),
                )
                .await?;

            // Moving a night: the confirmation.
            audit.page(&state("admin schedule, future nights"), "/admin/leagues/fall/schedule").await?;
            audit
                .submit(
                    &state("admin schedule, a move to confirm"),
                    "var f = document.querySelector('details.night-move form'); \
                     f.closest('details').open = true; \
                     f.querySelector('input[type=date]').value = '2027-01-07'; \
                     f.requestSubmit ? f.requestSubmit() : f.submit();",
                    message("#confirm-move"),
                )
                .await?;

            // A roster import checked: the preview.
            audit.page(&state("admin import"), "/admin/leagues/fall/import").await?;
            audit
                .submit(
                    &state("admin import, the preview"),
                    "var t = document.getElementById('csv'); \
                     t.value = 'team,player1,player2\\nNew Team,Ann Lee,Bo Park\\nHalf Team,Cy\\n'; \
                     var b = t.form.querySelector('button[name=confirm][value=\"0\"]'); \
                     t.form.requestSubmit ? t.form.requestSubmit(b) : b.click();",
                    message("#roster-preview"),
                )
                .await?;

            // The playoffs' preview.
            audit.page(&state("admin playoffs, none yet"), "/admin/leagues/fall/playoffs").await?;
            audit
                .submit(
                    &state("admin playoffs, the preview"),
                    "var b = document.getElementById('preview'); \
                     b.form.requestSubmit ? b.form.requestSubmit(b) : b.click();",
                    message("#playoffs-preview"),
                )
                .await?;

            // On a phone the site's links are behind "Menu": open it, as a thumb would.
            if size == "phone" {
                let menu = browser.find("#site-menu > summary").await?;
                browser.click(&menu).await?;
            }
            let logout = browser.find("header form[action=\"/logout\"] button").await?;
            browser.click_and_wait_for_page(&logout, WAIT).await?;
        }

        // The service worker's page for a page never opened on this phone, asked for without
        // a connection (the app is reached through a relay that can be cut: see
        // browser_outbox), at 390×844 and on a desktop window.
        let relay = relay_for(&app);
        let (opened, never) = match in_play.as_slice() {
            [opened, never, ..] => (*opened, *never),
            _ => bail!("two playoff matches in play: {in_play:?}"),
        };
        open_console(browser, &relay, "coord", opened).await?;
        go_offline(browser, &relay).await?;
        browser.goto(&relay.url(&format!("/supervise/matches/{never}"))).await?;
        browser.wait_for("#offline", WAIT).await?;
        audit.here("offline page, phone").await?;
        browser.set_window_size(1280, 1024).await?;
        audit.here("offline page, desktop").await?;
        go_online(browser, &relay).await?;
        audit.verdict("anonymous and admin, desktop and phone")
    })
    .await;
}

/// Two notices as the sender leaves them, one sent and one failed (this app sends no mail:
/// the page lists what is stored).
async fn stored_notices(app: &TestApp, slug: &str) {
    use spades_im::db::notices::{self, NewNotice};
    let now = app.db.clock().now();
    let mut tx = app.db.write().await.expect("a write");
    let slug: spades_im::domain::Slug = slug.parse().expect("a slug");
    let league = spades_im::db::leagues::by_slug(&mut tx, &slug)
        .await
        .expect("read")
        .expect("the league")
        .id;
    for (i, address) in ["ana@students.test", "ben@students.test"]
        .iter()
        .enumerate()
    {
        let key = format!("match_moved:1:{i}");
        let notice = NewNotice {
            league_id: league,
            event: "match_moved",
            event_key: &key,
            address,
            subject: "Team 1 v Team 2 has moved · fall",
            body_text: "Team 1 v Team 2 has moved.",
            body_html: "<p>Team 1 v Team 2 has moved.</p>",
        };
        notices::insert(&mut tx, &notice, now)
            .await
            .expect("a notice");
    }
    let held = now.plus_seconds(25);
    let first = notices::claim_due(&mut tx, now, held).await.expect("claim");
    let second = notices::claim_due(&mut tx, now, held).await.expect("claim");
    let (first, second) = (first.expect("a notice"), second.expect("another"));
    notices::mark_sent(&mut tx, first.id, held, now)
        .await
        .expect("sent");
    notices::mark_failed_try(&mut tx, (second.id, held), "550 5.1.1 no such user", None)
        .await
        .expect("failed");
    tx.commit().await.expect("commit");
}
