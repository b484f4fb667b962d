//! The calendar feeds (`/leagues/{slug}/calendar.ics`, `/teams/{id}/calendar.ics`) over real
//! HTTP, parsed back with the `icalendar` crate's parser and checked line by line by hand
//! (CRLF, 75-octet folding, escaping); the public schedule's grouping by night; and the
//! supervisor's list of tonight's matches after a match moves, is postponed or cancelled.
//! Matches are postponed, cancelled and moved through the API (docs/api.md §6.8).

use chrono::{DateTime, Utc};
use icalendar::{CalendarDateTime, Component, DatePerhapsTime, EventLike, EventStatus};
use serde_json::{Value, json};
use spades_im::service::{Role, night::tonight, people::accounts};

use crate::helpers::{
    Api, PASSWORD, TestApp, anonymous_get, html_element, html_text, json_with_status, manual_clock,
    spawn_app_with_clock,
};

/// Longer than a content line may be (75 octets with `X-WR-CALNAME:`), with a comma to
/// escape and a character of more than one octet.
const LONG_NAME: &str = "Intramural Spades — Thursday nights at the Student Union, Fall 2026";

/// A team name with both characters TEXT escapes.
const ODD_TEAM: &str = "Aces, Kings; Co.";

async fn team(admin: &Api, slug: &str, name: &str, players: [&str; 2]) -> i64 {
    let r = admin
        .post(
            &format!("/api/v1/leagues/{slug}/teams"),
            &json!({"name": name, "players": players}),
        )
        .await;
    json_with_status(r, 201, "add a team").await["id"]
        .as_i64()
        .unwrap()
}

/// Adds a match (admin); `when` in the league's wall-clock time, `stage` "regular" or
/// "playoff". Its id.
async fn add(
    admin: &Api,
    slug: &str,
    (a, b): (i64, i64),
    table: &str,
    when: Option<&str>,
    stage: &str,
) -> i64 {
    let mut body = json!({"team_a": a, "team_b": b, "table": table, "stage": stage});
    if let Some(when) = when {
        body["scheduled_at"] = json!(when);
    }
    let r = admin
        .post(&format!("/api/v1/leagues/{slug}/matches"), &body)
        .await;
    json_with_status(r, 201, "add a match").await["id"]
        .as_i64()
        .unwrap()
}

/// Cancels match `id` through the API (admin), with `note` as the reason.
async fn cancel(admin: &Api, id: i64, note: &str) {
    let r = admin
        .post(
            &format!("/api/v1/matches/{id}/cancel"),
            &json!({"reason": note}),
        )
        .await;
    json_with_status(r, 200, "cancel").await;
}

/// Postpones match `id` through the API (admin).
async fn postpone(admin: &Api, id: i64, note: &str) {
    let r = admin
        .post(
            &format!("/api/v1/matches/{id}/postpone"),
            &json!({"reason": note}),
        )
        .await;
    json_with_status(r, 200, "postpone").await;
}

/// Gives match `id` a new time through the API (admin): `PATCH` at its current version.
async fn move_to(admin: &Api, id: i64, when: &str) {
    let m = json_with_status(
        admin.get(&format!("/api/v1/matches/{id}")).await,
        200,
        "match",
    )
    .await;
    let r = admin
        .client
        .patch(format!("{}/api/v1/matches/{id}", admin.base))
        .bearer_auth(&admin.token)
        .json(&json!({"scheduled_at": when, "expected_version": m["version"]}))
        .send()
        .await
        .unwrap();
    json_with_status(r, 200, "new time").await;
}

/// An anonymous GET of a feed: checked to be `text/calendar` in UTF-8 with CRLF line ends
/// and no line over 75 octets; its text and the calendar parsed from it.
pub(crate) async fn feed(app: &TestApp, path: &str) -> (String, icalendar::Calendar) {
    let r = reqwest::Client::new()
        .get(app.url(path))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{path}");
    assert_eq!(
        r.headers()["content-type"].to_str().unwrap(),
        "text/calendar; charset=utf-8",
        "{path}"
    );
    let text = r.text().await.unwrap();
    assert!(text.ends_with("\r\n"), "{path}: {text}");
    for line in text.trim_end_matches("\r\n").split("\r\n") {
        assert!(
            line.len() <= 75,
            "{path}: a line of {} octets: {line:?}",
            line.len()
        );
        assert!(
            !line.contains(['\r', '\n']),
            "{path}: a bare line end in {line:?}"
        );
    }
    let cal: icalendar::Calendar = text
        .parse()
        .unwrap_or_else(|e| panic!("{path} does not parse: {e}\n{text}"));
    (text, cal)
}

/// The events of a calendar by UID.
fn events(cal: &icalendar::Calendar) -> Vec<&icalendar::Event> {
    cal.events().collect()
}

fn event<'a>(cal: &'a icalendar::Calendar, uid: &str) -> &'a icalendar::Event {
    cal.events()
        .find(|e| e.get_uid() == Some(uid))
        .unwrap_or_else(|| panic!("no event {uid}"))
}

pub(crate) fn uid(id: i64) -> String {
    format!("match-{id}@spades-im")
}

/// An event's DTSTART, which must be a UTC date-time (`…Z`).
fn start(e: &icalendar::Event) -> DateTime<Utc> {
    match e.get_start() {
        Some(DatePerhapsTime::DateTime(CalendarDateTime::Utc(t))) => t,
        other => panic!("DTSTART is not in UTC: {other:?}"),
    }
}

fn end(e: &icalendar::Event) -> DateTime<Utc> {
    match e.get_end() {
        Some(DatePerhapsTime::DateTime(CalendarDateTime::Utc(t))) => t,
        other => panic!("DTEND is not in UTC: {other:?}"),
    }
}

fn utc(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().to_utc()
}

#[actix_web::test]
async fn league_and_team_feeds_follow_the_schedule() {
    // The service runs in New York; the schedule is in its wall-clock time.
    let (clock, _) = manual_clock("2026-11-20T12:00:00Z", chrono_tz::America::New_York);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": LONG_NAME, "slug": "fall", "rules": {"regular": "classic"}}),
        )
        .await;
    json_with_status(r, 201, "create the league").await;
    let odd = team(&admin, "fall", ODD_TEAM, ["Ann", "Bo"]).await;
    let two = team(&admin, "fall", "Team 2", ["Cy", "Di"]).await;
    let three = team(&admin, "fall", "Team 3", ["Ed", "Flo"]).await;
    let four = team(&admin, "fall", "Team 4", ["Gus", "Hal"]).await;

    // 19:00 EST (UTC-5) is midnight UTC, the next day.
    let winter = add(
        &admin,
        "fall",
        (odd, two),
        "Table 1",
        Some("2026-11-24T19:00"),
        "regular",
    )
    .await;
    let called_off = add(
        &admin,
        "fall",
        (three, four),
        "Table 2",
        Some("2026-11-24T19:00"),
        "regular",
    )
    .await;
    // 02:30 on the night New York springs forward never happens: read with the offset
    // before the gap (EST), 07:30 UTC, as RFC 5545 reads it.
    let gap = add(
        &admin,
        "fall",
        (two, three),
        "Table 1",
        Some("2027-03-14T02:30"),
        "regular",
    )
    .await;
    let undated = add(&admin, "fall", (odd, three), "Table 3", None, "regular").await;
    let postponed = add(
        &admin,
        "fall",
        (odd, four),
        "Table 4",
        Some("2026-12-01T19:00"),
        "regular",
    )
    .await;
    cancel(&admin, called_off, "Gym closed; sorry, folks").await;
    postpone(&admin, postponed, "Snow").await;

    let (text, cal) = feed(&app, "/leagues/fall/calendar.ics").await;
    // The calendar's name, escaped and folded: read back whole.
    assert_eq!(
        cal.property_value("X-WR-CALNAME"),
        Some(LONG_NAME),
        "{text}"
    );
    assert!(
        text.contains("X-WR-CALNAME:Intramural Spades — Thursday nights at the Student Union\\,"),
        "the comma is escaped: {text}"
    );
    assert!(text.contains("\r\n "), "a long line is folded: {text}");
    // One event per match that has a time: not the undated one, not the postponed one.
    let all = events(&cal);
    assert_eq!(all.len(), 3, "{text}");
    let uids: Vec<&str> = all.iter().map(|e| e.get_uid().unwrap()).collect();
    assert_eq!(uids, [uid(winter), uid(called_off), uid(gap)], "{text}");
    assert!(!text.contains(&uid(undated)) && !text.contains(&uid(postponed)));

    let e = event(&cal, &uid(winter));
    assert_eq!(start(e), utc("2026-11-25T00:00:00Z"));
    assert_eq!(end(e), utc("2026-11-25T01:30:00Z"), "90 minutes");
    assert_eq!(
        e.get_timestamp(),
        Some(utc("2026-11-20T12:00:00Z")),
        "DTSTAMP"
    );
    assert_eq!(
        e.get_summary(),
        Some(format!("{ODD_TEAM} vs Team 2").as_str())
    );
    assert!(
        text.replace("\r\n ", "")
            .contains("\r\nSUMMARY:Aces\\, Kings\\; Co. vs Team 2\r\n"),
        "the comma and semicolon are escaped: {text}"
    );
    assert_eq!(e.get_location(), Some("Table 1"));
    assert_eq!(e.get_status(), Some(EventStatus::Confirmed));
    assert_eq!(e.get_sequence(), Some(0));
    let description = e.get_description().unwrap();
    assert!(description.contains(LONG_NAME), "{description}");
    assert!(description.contains("Regular season"), "{description}");

    let e = event(&cal, &uid(called_off));
    assert_eq!(e.get_status(), Some(EventStatus::Cancelled));
    assert_eq!(e.get_sequence(), Some(1));
    assert_eq!(start(e), utc("2026-11-25T00:00:00Z"));
    let description = e.get_description().unwrap();
    assert!(
        description.contains("Cancelled: Gym closed; sorry, folks"),
        "{description}"
    );

    assert_eq!(start(event(&cal, &uid(gap))), utc("2027-03-14T07:30:00Z"));

    // The match moves (a Thursday, 18:00 EST): the same UID, a greater SEQUENCE, the new
    // time.
    move_to(&admin, winter, "2026-11-26T18:00").await;
    let (text, cal) = feed(&app, "/leagues/fall/calendar.ics").await;
    let e = event(&cal, &uid(winter));
    assert_eq!(start(e), utc("2026-11-26T23:00:00Z"), "{text}");
    assert_eq!(e.get_sequence(), Some(1), "{text}");
    assert_eq!(events(&cal).len(), 3);
    // The postponed match gets a new time (in summer, EDT): it comes back, its sequence
    // bumped again.
    move_to(&admin, postponed, "2027-06-10T19:00").await;
    let (_, cal) = feed(&app, "/leagues/fall/calendar.ics").await;
    let e = event(&cal, &uid(postponed));
    assert_eq!(start(e), utc("2027-06-10T23:00:00Z"));
    assert_eq!(e.get_sequence(), Some(2));
    assert_eq!(e.get_location(), Some("Table 4"));

    // A team's feed: only its matches, named after it.
    let (text, cal) = feed(&app, &format!("/teams/{odd}/calendar.ics")).await;
    let uids: Vec<&str> = events(&cal).iter().map(|e| e.get_uid().unwrap()).collect();
    assert_eq!(uids, [uid(winter), uid(postponed)], "{text}");
    assert_eq!(
        cal.property_value("X-WR-CALNAME"),
        Some(format!("{ODD_TEAM} · {LONG_NAME}").as_str())
    );
    let (_, cal) = feed(&app, &format!("/teams/{three}/calendar.ics")).await;
    let uids: Vec<&str> = events(&cal).iter().map(|e| e.get_uid().unwrap()).collect();
    assert_eq!(uids, [uid(called_off), uid(gap)]);

    // The pages link to the feeds.
    let (_, _, home) = anonymous_get(&app, "/leagues/fall").await;
    assert!(
        home.contains("href=\"/leagues/fall/calendar.ics\""),
        "{home}"
    );
    assert!(home.contains("Add to calendar"));
    let (_, _, page) = anonymous_get(&app, &format!("/leagues/fall/teams/{odd}")).await;
    assert!(
        page.contains(&format!("href=\"/teams/{odd}/calendar.ics\"")),
        "{page}"
    );

    // Unknown league or team: 404.
    for path in [
        "/leagues/nope/calendar.ics",
        "/teams/999999/calendar.ics",
        "/teams/x/calendar.ics",
    ] {
        assert_eq!(anonymous_get(&app, path).await.0, 404, "{path}");
    }
}

/// The headings (`h2`, `h3`) of a page, in order, as text.
fn headings(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find("<h") {
        rest = &rest[at + 2..];
        let level = rest.chars().next().unwrap_or(' ');
        if !matches!(level, '2' | '3') || !rest[1..].starts_with('>') {
            continue;
        }
        let end = rest.find("</h").unwrap();
        out.push(format!("{level} {}", html_text(&rest[2..end])));
        rest = &rest[end..];
    }
    out
}

/// A long season links the weeks around the one shown, the first and the last, and marks
/// the weeks left out; each link shows its week.
#[actix_web::test]
async fn a_long_schedule_links_the_weeks_around_the_one_shown() {
    let (clock, _) = manual_clock("2027-02-03T17:00:00Z", chrono_tz::America::New_York);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    let t = app.league(&admin, "long", json!("classic"), 2).await;
    // Ten Tuesdays, from 5 January 2027.
    let first = chrono::NaiveDate::from_ymd_opt(2027, 1, 5).unwrap();
    let mut ids = Vec::new();
    for week in 0..10 {
        let night = first + chrono::Duration::weeks(week);
        let when = format!("{night}T19:00");
        ids.push(add(&admin, "long", (t[0], t[1]), "T1", Some(&when), "regular").await);
    }
    let html = admin
        .get("/leagues/long/schedule")
        .await
        .text()
        .await
        .unwrap();
    let nav = html_element(&html, "week-nav", "</nav>").unwrap();
    assert_eq!(
        html_text(nav).replace("Week of ", ""),
        "Tue 5 Jan 2027 Tue 12 Jan 2027 Tue 19 Jan 2027 Tue 26 Jan 2027 Tue 2 Feb 2027 Tue 9 Feb 2027 Tue 16 Feb 2027 \
         Tue 23 Feb 2027 … (more weeks) Tue 9 Mar 2027 Whole season",
        "{nav}"
    );
    assert!(
        nav.contains("?week=2027-02-01\" aria-current=\"page\""),
        "{nav}"
    );
    // Only this week's match.
    for (week, id) in ids.iter().enumerate() {
        let shown = html.contains(&format!("href=\"/matches/{id}\""));
        assert_eq!(shown, week == 4, "week {week}");
    }
    // From the first week: the three after it, a gap, the last.
    let html = admin
        .get("/leagues/long/schedule?week=2027-01-04")
        .await
        .text()
        .await
        .unwrap();
    let nav = html_element(&html, "week-nav", "</nav>").unwrap();
    assert_eq!(
        html_text(nav).replace("Week of ", ""),
        "Tue 5 Jan 2027 Tue 12 Jan 2027 Tue 19 Jan 2027 Tue 26 Jan 2027 … (more weeks) Tue 9 Mar 2027 Whole season",
        "{nav}"
    );
}

/// A team's page is paged as the schedule is: at first its recent and upcoming matches
/// (three weeks with matches each side of this week's), then a week's or the whole season's,
/// with the same pager; the matches without a time on every page; a week without its
/// matches says so.
#[actix_web::test]
async fn a_team_page_shows_recent_and_upcoming_matches_and_pages_the_rest() {
    let (clock, _) = manual_clock("2027-02-03T17:00:00Z", chrono_tz::America::New_York);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    let t = app.league(&admin, "long", json!("classic"), 2).await;
    // Ten Tuesdays, from 5 January 2027 (this week is the fifth), and one without a time.
    let first = chrono::NaiveDate::from_ymd_opt(2027, 1, 5).unwrap();
    let mut ids = Vec::new();
    for week in 0..10 {
        let when = format!("{}T19:00", first + chrono::Duration::weeks(week));
        ids.push(add(&admin, "long", (t[0], t[1]), "T1", Some(&when), "regular").await);
    }
    let undated = add(&admin, "long", (t[1], t[0]), "T1", None, "regular").await;
    let rows = |html: &str| -> Vec<i64> {
        let table = html_element(html, "team-matches", "</table>").unwrap_or("");
        table
            .split("<tr id=\"team-match-")
            .skip(1)
            .map(|r| r[..r.find('"').unwrap()].parse().unwrap())
            .collect()
    };
    let page = |path: String| {
        let app = &app;
        async move { anonymous_get(app, &path).await }
    };

    // At first: the weeks 11 January to 15 February, the undated match last; either side.
    for team in [t[0], t[1]] {
        let (status, _, html) = page(format!("/leagues/long/teams/{team}")).await;
        assert_eq!(status, 200);
        let mut expected = ids[1..7].to_vec();
        expected.push(undated);
        assert_eq!(rows(&html), expected, "team {team}");
        let nav = html_element(&html, "week-nav", "</nav>").unwrap();
        assert_eq!(
            html_text(nav).replace("Week of ", ""),
            "Recent and upcoming Tue 5 Jan 2027 Tue 12 Jan 2027 Tue 19 Jan 2027 Tue 26 Jan 2027 Tue 2 Feb 2027 \
             Tue 9 Feb 2027 Tue 16 Feb 2027 … (more weeks) Tue 9 Mar 2027 Whole season",
            "{nav}"
        );
        assert!(
            nav.contains(&format!(
                "href=\"/leagues/long/teams/{team}\" aria-current=\"page\">Recent and upcoming"
            )),
            "{nav}"
        );
        assert!(nav.contains("aria-label=\"Weeks with matches of this team\""));
        assert!(html.contains("Recent and upcoming matches"));
    }

    // The first week: its match (and the undated one), marked in the pager.
    let (_, _, html) = page(format!("/leagues/long/teams/{}?week=2027-01-06", t[0])).await;
    assert_eq!(rows(&html), [ids[0], undated]);
    let nav = html_element(&html, "week-nav", "</nav>").unwrap();
    assert!(
        nav.contains(&format!(
            "href=\"/leagues/long/teams/{}?week=2027-01-04\" aria-current=\"page\"",
            t[0]
        )),
        "{nav}"
    );
    assert!(html.contains("Week of Tuesday 5 January 2027"));
    // The whole season: every match.
    let (_, _, html) = page(format!("/leagues/long/teams/{}?week=all", t[0])).await;
    let mut all = ids.clone();
    all.push(undated);
    assert_eq!(rows(&html), all);
    // A week without its matches: the undated one, and the pager.
    let (status, _, html) = page(format!("/leagues/long/teams/{}?week=2000-01-03", t[1])).await;
    assert_eq!(status, 200);
    assert_eq!(rows(&html), [undated]);
    assert!(html.contains("id=\"week-nav\""));
    // No page for a week that is not a date.
    for week in ["soon", "2027-13-01", ""] {
        let path = format!("/leagues/long/teams/{}?week={week}", t[0]);
        assert_eq!(page(path.clone()).await.0, 404, "{path}");
    }
}

#[actix_web::test]
async fn the_schedule_goes_night_by_night_with_undated_matches_last() {
    let (clock, time) = manual_clock("2026-11-20T12:00:00Z", chrono_tz::America::New_York);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    let t = app.league(&admin, "fall", json!("classic"), 4).await;
    // A round robin without dates: rounds 1 to 3, not yet scheduled.
    let r = admin
        .post(
            "/api/v1/leagues/fall/schedule",
            &json!({"format": "round_robin"}),
        )
        .await;
    let generated = json_with_status(r, 201, "schedule").await;
    let generated: Vec<Value> = generated["matches"].as_array().unwrap().clone();
    let round2 = generated.iter().find(|m| m["round"] == 2).unwrap()["id"]
        .as_i64()
        .unwrap();
    postpone(&admin, round2, "Team 1 at a tournament").await;
    // Nights added out of order; a playoff match on a night and one without a time (round 1
    // of the playoffs, as the bracket makes them: it used to sort between Round 1 and
    // Round 2).
    let later = add(
        &admin,
        "fall",
        (t[0], t[1]),
        "Table 1",
        Some("2026-12-01T19:00"),
        "regular",
    )
    .await;
    let first = add(
        &admin,
        "fall",
        (t[2], t[3]),
        "Table 2",
        Some("2026-11-24T19:30"),
        "regular",
    )
    .await;
    let off = add(
        &admin,
        "fall",
        (t[0], t[2]),
        "Table 1",
        Some("2026-11-24T19:00"),
        "regular",
    )
    .await;
    cancel(&admin, off, "Gym closed").await;
    let playoff = add(
        &admin,
        "fall",
        (t[0], t[3]),
        "Table 1",
        Some("2026-12-08T19:00"),
        "playoff",
    )
    .await;
    let undated_playoff = add(&admin, "fall", (t[1], t[2]), "Table 2", None, "playoff").await;
    // A round, as a bracket gives its matches (no API sets one on a single match).
    spades_im::on_store!(app.db.read_latest().await.unwrap(), |c| sqlx::query(
        "UPDATE matches SET round = 1 WHERE id = $1"
    )
    .bind(undated_playoff)
    .execute(c)
    .await
    .map(|r| r.rows_affected()))
    .unwrap();

    // By default one week: on Friday 20 November, the next week with matches (23 November),
    // with the matches not yet scheduled; a link to each week and to the whole season.
    let (status, _, html) = anonymous_get(&app, "/leagues/fall/schedule").await;
    assert_eq!(status, 200);
    assert_eq!(
        headings(&html),
        [
            "2 Tuesday 24 November 2026",
            "2 Not yet scheduled",
            "3 Round 1",
            "3 Round 2",
            "3 Round 3",
            "3 Playoffs, round 1",
        ],
        "{html}"
    );
    assert!(
        !html.contains(&format!("href=\"/matches/{later}\"")),
        "{html}"
    );
    assert_eq!(
        html_text(html_element(&html, "shown-span", "</p>").unwrap()),
        "Week of Tuesday 24 November 2026"
    );
    let nav = html_element(&html, "week-nav", "</nav>").unwrap();
    assert_eq!(
        html_text(nav),
        "Week of Tue 24 Nov 2026 Week of Tue 1 Dec 2026 Week of Tue 8 Dec 2026 Whole season",
        "{nav}"
    );
    assert!(
        nav.contains("href=\"/leagues/fall/schedule?week=2026-11-23\" aria-current=\"page\""),
        "{nav}"
    );
    assert_eq!(nav.matches("aria-current").count(), 1, "{nav}");
    // Any day of a week asks for that week.
    let (status, _, html) = anonymous_get(&app, "/leagues/fall/schedule?week=2026-12-03").await;
    assert_eq!(status, 200);
    assert_eq!(headings(&html)[0], "2 Tuesday 1 December 2026", "{html}");
    assert!(
        html.contains(&format!("href=\"/matches/{later}\"")),
        "{html}"
    );
    assert!(
        !html.contains(&format!("href=\"/matches/{first}\"")),
        "{html}"
    );
    // A week with no match says so.
    let (status, _, html) = anonymous_get(&app, "/leagues/fall/schedule?week=2027-01-04").await;
    assert_eq!(status, 200);
    assert_eq!(
        html_text(html_element(&html, "no-matches", "</p>").unwrap()),
        "No matches in this week."
    );
    // Not a week: not a page.
    for bad in ["yesterday", "2026-13-01", ""] {
        let (status, _, _) =
            anonymous_get(&app, &format!("/leagues/fall/schedule?week={bad}")).await;
        assert_eq!(status, 404, "{bad}");
    }
    // During the playoffs' week, that week; after the season, its last week.
    for (now, shown) in [
        ("2026-12-09T12:00:00Z", "Playoffs · Tuesday 8 December 2026"),
        ("2027-02-01T12:00:00Z", "Playoffs · Tuesday 8 December 2026"),
        ("2026-11-30T12:00:00Z", "Tuesday 1 December 2026"),
    ] {
        time.set(chrono::DateTime::parse_from_rfc3339(now).unwrap().to_utc());
        let html = admin
            .get("/leagues/fall/schedule")
            .await
            .text()
            .await
            .unwrap();
        assert_eq!(headings(&html)[0], format!("2 {shown}"), "{now}");
    }

    // The whole season.
    let (status, _, html) = anonymous_get(&app, "/leagues/fall/schedule?week=all").await;
    assert_eq!(status, 200);
    assert_eq!(
        headings(&html),
        [
            "2 Tuesday 24 November 2026",
            "2 Tuesday 1 December 2026",
            "2 Playoffs · Tuesday 8 December 2026",
            "2 Not yet scheduled",
            "3 Round 1",
            "3 Round 2",
            "3 Round 3",
            "3 Playoffs, round 1",
        ],
        "{html}"
    );
    // Within a night, by time: the cancelled 19:00 match before the 19:30 one.
    let night = html_element(&html, "night-2026-11-24", "</section>").unwrap();
    let (a, b) = (
        night.find(&format!("id=\"match-{off}\"")).unwrap(),
        night.find(&format!("id=\"match-{first}\"")).unwrap(),
    );
    assert!(a < b, "{night}");
    // Postponed and cancelled in words, with the reason.
    let row = html_text(html_element(&html, &format!("match-{off}"), "</li>").unwrap());
    assert!(row.contains("Cancelled (Gym closed)"), "{row}");
    let row = html_text(html_element(&html, &format!("match-{round2}"), "</li>").unwrap());
    assert!(row.contains("Postponed (Team 1 at a tournament)"), "{row}");
    let section = html_element(&html, "not-yet-scheduled", "</h2>").unwrap();
    assert!(section.contains("Not yet scheduled"));
    // Every match links to its page.
    let mut all: Vec<i64> = generated
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    all.extend([later, first, off, playoff, undated_playoff]);
    for id in all {
        assert!(
            html.contains(&format!("href=\"/matches/{id}\"")),
            "match {id}"
        );
    }
}

#[actix_web::test]
async fn tonight_follows_moves_and_leaves_out_postponed_and_cancelled_matches() {
    // 20 November 2026, 12:00 in New York.
    let (clock, _) = manual_clock("2026-11-20T17:00:00Z", chrono_tz::America::New_York);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    let t = app.league(&admin, "fall", json!("classic"), 4).await;
    let moved = add(
        &admin,
        "fall",
        (t[0], t[1]),
        "Table 1",
        Some("2026-11-27T19:00"),
        "regular",
    )
    .await;
    let kept = add(
        &admin,
        "fall",
        (t[2], t[3]),
        "Table 2",
        Some("2026-11-20T19:00"),
        "regular",
    )
    .await;
    let off = add(
        &admin,
        "fall",
        (t[0], t[2]),
        "Table 3",
        Some("2026-11-20T19:00"),
        "regular",
    )
    .await;
    let later = add(
        &admin,
        "fall",
        (t[1], t[3]),
        "Table 4",
        Some("2026-11-20T20:00"),
        "regular",
    )
    .await;
    move_to(&admin, moved, "2026-11-20T18:30").await;
    cancel(&admin, off, "No room").await;
    postpone(&admin, later, "Snow").await;

    let boss = accounts::create_user(&app.db, None, "boss", Role::Admin, PASSWORD)
        .await
        .unwrap();
    let list = tonight::tonight(&app.db, &boss).await.unwrap();
    let today: Vec<(i64, bool)> = list
        .today
        .iter()
        .map(|l| (l.summary.id.0, l.today))
        .collect();
    // The cancelled match is listed on its day, after the ones still to play.
    assert_eq!(
        today,
        [(moved, true), (kept, true), (off, false)],
        "tonight, by the new time"
    );
    assert!(list.later.is_empty() && list.untimed.is_empty());
    assert!(
        list.earlier
            .iter()
            .chain(&list.today)
            .all(|l| l.summary.id.0 != later),
        "a postponed match is not listed"
    );
}

/// A league's venue (`settings.venue`) is each event's place, after its table, in the
/// league's and the team's feeds; the league's page says it; a venue of two lines is
/// refused.
#[actix_web::test]
async fn the_venue_is_each_events_place() {
    let (clock, _) = manual_clock("2026-11-20T12:00:00Z", chrono_tz::America::New_York);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Fall", "slug": "fall", "rules": {"regular": "classic"},
                    "settings": {"venue": " Rec Center, Room 2 "}}),
        )
        .await;
    let league = json_with_status(r, 201, "create the league").await;
    assert_eq!(league["settings"]["venue"], "Rec Center, Room 2");
    let one = team(&admin, "fall", "Team 1", ["Ann", "Bo"]).await;
    let two = team(&admin, "fall", "Team 2", ["Cy", "Di"]).await;
    let at_table = add(
        &admin,
        "fall",
        (one, two),
        "Table 1",
        Some("2026-11-24T19:00"),
        "regular",
    )
    .await;
    let (_, cal) = feed(&app, "/leagues/fall/calendar.ics").await;
    let e = event(&cal, &uid(at_table));
    assert_eq!(e.get_location(), Some("Table 1, Rec Center, Room 2"));
    let (_, cal) = feed(&app, &format!("/teams/{one}/calendar.ics")).await;
    assert_eq!(
        event(&cal, &uid(at_table)).get_location(),
        Some("Table 1, Rec Center, Room 2")
    );
    let rules = app.get("/leagues/fall/rules").await.text().await.unwrap();
    assert!(
        rules.contains("Matches are played at Rec Center, Room 2."),
        "the league's rules page says where"
    );

    let before = app.tables().await;
    // Two lines, and an invisible direction change (the same text rules as a name's).
    for venue in ["Rec Center\nRoom 2", "Rec Center \u{202E}2 mooR"] {
        let r = admin
            .patch(
                "/api/v1/leagues/fall",
                &json!({"settings": {"venue": venue}}),
            )
            .await;
        let v = json_with_status(r, 422, "a refused venue").await;
        assert_eq!(v["error"]["field"], "settings.venue", "{v}");
    }
    app.assert_nothing_written(&before, "a refused venue").await;
    let r = admin
        .patch(
            "/api/v1/leagues/fall",
            &json!({"settings": {"venue": null}}),
        )
        .await;
    let league = json_with_status(r, 200, "no venue").await;
    assert!(league["settings"].get("venue").is_none(), "{league}");
    let (_, cal) = feed(&app, "/leagues/fall/calendar.ics").await;
    assert_eq!(event(&cal, &uid(at_table)).get_location(), Some("Table 1"));
}
