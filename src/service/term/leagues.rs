//! Leagues: their rules per stage (checked and resolved), tiebreak order and supervisors.

use crate::db::{Conn, Tx};
use serde::{Deserialize, Serialize};

use crate::db::leagues::{self as db_leagues, LeagueRow, NewLeague};
use crate::db::{Db, users};
use crate::domain::{ErrorCode, LeagueId, Slug, Timestamp, UserId};
use crate::league::settings::Settings;
use crate::league::standings::Tiebreak;
use crate::rules::{Rules, RulesSpec, Stage};
use crate::service::audit;
use crate::service::text::{self, Lines, NameKey, TextRule};
use crate::service::{ServiceError, User, require_admin, to_json};

/// A league's rules as given per stage (playoff and final default to the regular rules).
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StageRules {
    pub regular: RulesSpec,
    #[serde(default)]
    pub playoff: Option<RulesSpec>,
    #[serde(default)]
    pub r#final: Option<RulesSpec>,
}

#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewLeagueInput {
    pub name: String,
    #[serde(default)]
    pub slug: Option<String>,
    pub rules: StageRules,
    /// Standings tiebreak order, e.g. `["head_to_head", "differential", "points_for"]`.
    #[serde(default)]
    pub tiebreak_order: Option<Vec<String>>,
    /// Season settings (forfeit policy, sportsmanship, eligibility), merged field by field
    /// over the defaults (or, for a change, over the league's current settings).
    #[serde(default)]
    #[schema(value_type = Option<Settings>)]
    pub settings: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct RulesByStage {
    pub regular: Rules,
    pub playoff: Rules,
    pub r#final: Rules,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct LeagueView {
    pub id: LeagueId,
    pub slug: String,
    pub name: String,
    /// The rules as given (a preset name or overrides), per stage.
    pub rules_spec: serde_json::Value,
    /// Every field resolved, per stage.
    pub rules: RulesByStage,
    pub tiebreak_order: Vec<String>,
    pub created_at: Timestamp,
    /// Forfeit policy, sportsmanship scale, playoff eligibility (every field resolved).
    pub settings: Settings,
    /// A past season: read-only, listed under `?archived=true` (§18.2).
    pub archived: bool,
    /// The winner of the decided final of the league's bracket, if any.
    pub champion: Option<crate::service::TeamRef>,
}

/// A league as stored, with its rules resolved.
#[derive(Debug, Clone)]
pub struct League {
    pub row: LeagueRow,
    pub specs: [RulesSpec; 3],
    pub rules: [Rules; 3],
    pub tiebreak: Vec<Tiebreak>,
    pub settings: Settings,
}

impl League {
    /// The order that breaks ties in the standings: the league's, else the default.
    pub fn tiebreak_or_default(&self) -> Vec<Tiebreak> {
        if self.tiebreak.is_empty() {
            Tiebreak::DEFAULT_ORDER.to_vec()
        } else {
            self.tiebreak.clone()
        }
    }

    pub fn from_row(row: LeagueRow) -> Result<League, ServiceError> {
        let parse = |text: &str| -> Result<(RulesSpec, Rules), ServiceError> {
            let spec: RulesSpec =
                serde_json::from_str(text).map_err(|e| ServiceError::corrupt("stored rules", e))?;
            let rules = spec
                .resolve()
                .map_err(|e| ServiceError::corrupt("stored rules", e.message))?;
            Ok((spec, rules))
        };
        let (s0, r0) = parse(&row.rules_regular)?;
        let (s1, r1) = parse(&row.rules_playoff)?;
        let (s2, r2) = parse(&row.rules_final)?;
        let tiebreak = row
            .tiebreak_order
            .split(',')
            .filter_map(Tiebreak::parse)
            .collect();
        let settings: Settings = serde_json::from_str(&row.settings)
            .map_err(|e| ServiceError::corrupt("stored settings", e))?;
        Ok(League {
            row,
            specs: [s0, s1, s2],
            rules: [r0, r1, r2],
            tiebreak,
            settings,
        })
    }

    pub fn rules_for(&self, stage: Stage) -> &Rules {
        match stage {
            Stage::Regular => &self.rules[0],
            Stage::Playoff => &self.rules[1],
            Stage::Final => &self.rules[2],
        }
    }

    pub fn view(&self) -> LeagueView {
        LeagueView {
            id: self.row.id,
            slug: self.row.slug.to_string(),
            name: self.row.name.clone(),
            rules_spec: serde_json::json!({
                "regular": self.specs[0], "playoff": self.specs[1], "final": self.specs[2]
            }),
            rules: RulesByStage {
                regular: self.rules[0].clone(),
                playoff: self.rules[1].clone(),
                r#final: self.rules[2].clone(),
            },
            tiebreak_order: self
                .tiebreak
                .iter()
                .map(|t| t.as_str().to_string())
                .collect(),
            created_at: self.row.created_at,
            settings: self.settings.clone(),
            archived: self.row.archived,
            champion: None,
        }
    }

    /// [`League::view`] with the league's champion, read on `conn` (none, logged, where
    /// the bracket does not read: the league still shows).
    pub async fn view_on(&self, conn: &mut Conn) -> Result<LeagueView, ServiceError> {
        Ok(LeagueView {
            champion: shown_champion(conn, self.row.id).await?,
            ..self.view()
        })
    }
}

/// The league's champion as a list or a league's answer shows it: none where its bracket
/// does not read (logged; `check` names it), so the league is still listed and answered.
pub(crate) async fn shown_champion(
    conn: &mut Conn,
    id: LeagueId,
) -> Result<Option<crate::service::TeamRef>, ServiceError> {
    match crate::service::playoffs::champion(conn, id).await {
        Err(e) if e.is_unreadable() => {
            tracing::error!(league = %id, error = %e, "a bracket that does not read shows no champion (see `check`)");
            Ok(None)
        }
        other => other,
    }
}

/// The leagues of `rows` whose rules and settings read: one that does not is left out and
/// logged, so a list every league shares never fails for it (`check` names it).
pub(crate) fn readable(rows: Vec<LeagueRow>) -> Vec<League> {
    rows.into_iter()
        .filter_map(|row| {
            let (id, slug) = (row.id, row.slug.to_string());
            League::from_row(row)
                .inspect_err(|e| {
                    tracing::error!(league = %id, %slug, error = %e, "left out a league that does not read (see `check`)");
                })
                .ok()
        })
        .collect()
}

pub async fn league_by_slug(conn: &mut Conn, slug: &Slug) -> Result<League, ServiceError> {
    League::from_row(league_row(conn, slug).await?)
}

/// The league `slug` with its rules, for anyone (404 for no such league).
pub async fn league(db: &Db, slug: &Slug) -> Result<League, ServiceError> {
    let mut conn = db.read().await?;
    league_by_slug(&mut conn, slug).await
}

/// A league's row as stored (404 for an unknown slug).
pub(crate) async fn league_row(conn: &mut Conn, slug: &Slug) -> Result<LeagueRow, ServiceError> {
    db_leagues::by_slug(conn, slug)
        .await?
        .ok_or(ServiceError::NotFound)
}

pub async fn all_leagues(db: &Db) -> Result<Vec<League>, ServiceError> {
    let mut conn = db.read().await?;
    Ok(readable(db_leagues::all(&mut conn).await?))
}

/// The current leagues (`archived` false) or the past seasons (true) as the API shows them,
/// newest first.
pub async fn views(db: &Db, archived: bool) -> Result<Vec<LeagueView>, ServiceError> {
    let mut tx = db.snapshot().await?;
    let mut views = Vec::new();
    for league in readable(db_leagues::all(&mut tx).await?) {
        if league.row.archived == archived {
            views.push(league.view_on(&mut tx).await?);
        }
    }
    Ok(views)
}

/// The league `slug` as the API shows it (404 for no such league).
pub async fn view_by_slug(db: &Db, slug: &Slug) -> Result<LeagueView, ServiceError> {
    let mut tx = db.snapshot().await?;
    league_by_slug(&mut tx, slug).await?.view_on(&mut tx).await
}

/// Checks the rules per stage (playoff and final default to the regular rules): each as
/// stored (JSON) and resolved. An error names the stage ("rules.playoff.bags.limit").
fn check_rules(rules: &StageRules) -> Result<[(String, Rules); 3], ServiceError> {
    let [regular, playoff, r#final] = [
        ("regular", None),
        ("playoff", rules.playoff.as_ref()),
        ("final", rules.r#final.as_ref()),
    ]
    .map(|(stage, spec)| -> Result<(String, Rules), ServiceError> {
        let spec = spec.unwrap_or(&rules.regular);
        let resolved = spec.resolve().map_err(|e| {
            ServiceError::invalid(
                ErrorCode::InvalidRules,
                &format!("rules.{stage}.{}", e.field.unwrap_or_default()),
                // The rules' own message starts "rules: " or "rules.<field>: ": the stage
                // takes that word's place ("playoff rules: unknown field …").
                format!(
                    "{stage} rules: {}",
                    e.message
                        .strip_prefix("rules: ")
                        .or_else(|| e.message.strip_prefix("rules."))
                        .unwrap_or(&e.message)
                ),
            )
        })?;
        Ok((to_json("rules", spec)?, resolved))
    });
    Ok([regular?, playoff?, r#final?])
}

fn check_tiebreak(order: Option<&[String]>) -> Result<String, ServiceError> {
    let Some(order) = order else {
        return Ok(Tiebreak::DEFAULT_ORDER
            .iter()
            .map(|t| t.as_str())
            .collect::<Vec<_>>()
            .join(","));
    };
    let mut names = Vec::new();
    for name in order {
        let t = Tiebreak::parse(name).ok_or_else(|| {
            ServiceError::invalid(
                ErrorCode::InvalidLeague,
                "tiebreak_order",
                format!("unknown tiebreak \"{name}\"; use head_to_head, differential, points_for"),
            )
        })?;
        if !names.contains(&t.as_str()) {
            names.push(t.as_str());
        }
    }
    Ok(names.join(","))
}

/// The rule of a name (a league's, a team's, a player's) in the words of `field` and `what`.
pub(crate) fn name_rule<'a>(field: &'a str, what: &'a str) -> TextRule<'a> {
    TextRule {
        code: ErrorCode::InvalidInput,
        field,
        what,
        max: text::NAME_MAX,
        lines: Lines::One,
    }
}

/// A new league's slug: the one given (trimmed), else made from the name. A reserved slug
/// ([`Slug::RESERVED`]) is refused here, so the pages and the API refuse it alike.
pub(crate) fn check_slug(slug: Option<&str>, name: &str) -> Result<Slug, ServiceError> {
    let slug = match slug.map(str::trim) {
        Some(s) if !s.is_empty() => s.parse(),
        _ => Slug::from_name(name),
    }
    .map_err(|bad| ServiceError::invalid(ErrorCode::InvalidLeague, "slug", bad.to_string()))?;
    if slug.is_reserved() {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidLeague,
            "slug",
            format!("\"{slug}\" is an address of the service itself; pick another slug"),
        ));
    }
    Ok(slug)
}

/// A league's input, checked: what [`create_league`] and [`update_league`] store.
struct Checked {
    name: String,
    slug: Slug,
    /// Per stage (regular, playoff, final): the rules as stored and resolved.
    rules: [(String, Rules); 3],
    tiebreak: String,
}

impl Checked {
    fn row(&self, now: Timestamp) -> NewLeague<'_> {
        NewLeague {
            slug: self.slug.as_str(),
            name: &self.name,
            rules_regular: &self.rules[0].0,
            rules_playoff: &self.rules[1].0,
            rules_final: &self.rules[2].0,
            tiebreak_order: &self.tiebreak,
            now,
        }
    }

    /// The rules as stored, per stage (for the audit log).
    fn stored_rules(&self) -> [&str; 3] {
        self.rules.each_ref().map(|(text, _)| text.as_str())
    }
}

/// Checks a league's input in order: name, slug, rules per stage, tiebreak order. `existing`
/// is the slug of the league being changed (it stays); without it, the slug of a new league
/// is checked.
fn check_input(input: &NewLeagueInput, existing: Option<&Slug>) -> Result<Checked, ServiceError> {
    let name = name_rule("name", "the league's name").check(&input.name)?;
    let slug = match existing {
        Some(slug) => slug.clone(),
        None => check_slug(input.slug.as_deref(), &name)?,
    };
    Ok(Checked {
        rules: check_rules(&input.rules)?,
        tiebreak: check_tiebreak(input.tiebreak_order.as_deref())?,
        name,
        slug,
    })
}

/// Refuses `name` when a current (not archived) league other than `except` has it, ignoring
/// case and look-alikes (409 `league_name_taken` on `name`): two "Spring 2027 Spades" side
/// by side in the public list are one too many. A past season may share its name.
pub(in crate::service) async fn check_name_free(
    conn: &mut Conn,
    name: &str,
    except: Option<LeagueId>,
) -> Result<(), ServiceError> {
    let key = NameKey::of(name);
    let leagues = db_leagues::all(conn).await?;
    let taken = leagues
        .iter()
        .filter(|l| !l.archived && Some(l.id) != except)
        .find(|l| NameKey::of(&l.name) == key);
    match taken {
        Some(other) => Err(ServiceError::ConflictOn(crate::domain::FieldError::at(
            ErrorCode::LeagueNameTaken,
            crate::domain::Field::path("name".into()),
            format!(
                "the league \"{}\" ({}) has that name: choose one that tells them apart, or archive it first",
                other.name, other.slug
            ),
        ))),
        None => Ok(()),
    }
}

/// Reads back the league just written, then commits.
pub(in crate::service) async fn commit_league(
    mut tx: Tx,
    id: LeagueId,
) -> Result<League, ServiceError> {
    let row = db_leagues::by_id(&mut tx, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    tx.commit().await?;
    League::from_row(row)
}

#[tracing::instrument(skip_all, fields(user_id = %user.id))]
pub async fn create_league(
    db: &Db,
    user: &User,
    input: &NewLeagueInput,
) -> Result<League, ServiceError> {
    let now = db.clock().now();
    require_admin(user)?;
    let new = check_input(input, None)?;
    let mut tx = db.write().await?;
    if db_leagues::by_slug(&mut tx, &new.slug).await?.is_some() {
        return Err(ServiceError::conflict(
            ErrorCode::SlugTaken,
            format!("a league with the slug \"{}\" exists", new.slug),
        ));
    }
    check_name_free(&mut tx, &new.name, None).await?;
    let id = db_leagues::insert(&mut tx, &new.row(now)).await?;
    let settings = match &input.settings {
        Some(patch) => {
            let settings = checked_settings(&Settings::default(), patch)?;
            db_leagues::set_settings(&mut tx, id, &to_json("settings", &settings)?).await?;
            settings
        }
        None => Settings::default(),
    };
    let after = serde_json::json!({"slug": new.slug, "name": new.name, "rules": new.stored_rules(), "settings": settings})
        .to_string();
    audit::record(
        &mut tx,
        user,
        now,
        audit::Change::new("create", audit::Subject::League(id)).after(&after),
    )
    .await?;
    commit_league(tx, id).await
}

/// Deletes a league made by mistake, with every team, player, division and match it has:
/// only while nothing was played in it (409 `league_has_results`) and while it is not
/// archived (409 `league_archived`: a past season is kept). The audit keeps what it was.
#[tracing::instrument(skip_all, fields(user_id = %user.id, slug = ?slug))]
pub async fn delete_league(db: &Db, user: &User, slug: &Slug) -> Result<(), ServiceError> {
    let now = db.clock().now();
    require_admin(user)?;
    let mut tx = db.write().await?;
    let row = league_row(&mut tx, slug).await?;
    if row.archived {
        return Err(ServiceError::conflict(
            ErrorCode::LeagueArchived,
            "this league is archived (a past season): it is kept; reopen it first to delete it",
        ));
    }
    if db_leagues::has_results(&mut tx, row.id).await? {
        return Err(ServiceError::conflict(
            ErrorCode::LeagueHasResults,
            "matches were played in this league: it is kept; close its season instead (archive)",
        ));
    }
    let teams = db_leagues::count_teams(&mut tx, row.id).await?;
    let before =
        serde_json::json!({"slug": row.slug, "name": row.name, "teams": teams}).to_string();
    audit::record(
        &mut tx,
        user,
        now,
        audit::Change::new("delete", audit::Subject::League(row.id)).before(&before),
    )
    .await?;
    db_leagues::delete(&mut tx, row.id).await?;
    tx.commit().await?;
    Ok(())
}

/// Changes a league's name, rules or tiebreak order (matches already started keep the rules
/// they were frozen with).
#[tracing::instrument(skip_all, fields(user_id = %user.id, slug = ?slug))]
pub async fn update_league(
    db: &Db,
    user: &User,
    slug: &Slug,
    input: &NewLeagueInput,
) -> Result<League, ServiceError> {
    let now = db.clock().now();
    require_admin(user)?;
    let new = check_input(input, Some(slug))?;
    let mut tx = db.write().await?;
    let before = league_row(&mut tx, slug).await?;
    check_name_free(&mut tx, &new.name, Some(before.id)).await?;
    db_leagues::update(&mut tx, before.id, &new.row(now)).await?;
    let current = League::from_row(before.clone())?.settings;
    let settings = match &input.settings {
        Some(patch) => {
            let settings = checked_settings(&current, patch)?;
            db_leagues::set_settings(&mut tx, before.id, &to_json("settings", &settings)?).await?;
            settings
        }
        None => current.clone(),
    };
    let queue_now = crate::service::night::calls::Now::of(db);
    crate::service::night::calls::settings_changed(&mut tx, before.id, queue_now).await?;
    let b = serde_json::json!({"name": before.name, "rules": [before.rules_regular, before.rules_playoff, before.rules_final], "tiebreak": before.tiebreak_order, "settings": current}).to_string();
    let a = serde_json::json!({"name": new.name, "rules": new.stored_rules(), "tiebreak": new.tiebreak, "settings": settings}).to_string();
    audit::record(
        &mut tx,
        user,
        now,
        audit::Change::new("update", audit::Subject::League(before.id))
            .before(&b)
            .after(&a),
    )
    .await?;
    commit_league(tx, before.id).await
}

/// `patch` merged over `current`, or why not (422 `invalid_settings` naming the field).
fn checked_settings(
    current: &Settings,
    patch: &serde_json::Value,
) -> Result<Settings, ServiceError> {
    current
        .merged(patch)
        .map_err(|e| ServiceError::invalid(ErrorCode::InvalidSettings, &e.field, e.message))
}

/// Changes a league's season settings, merged field by field over the current ones.
#[tracing::instrument(skip_all, fields(user_id = %user.id, slug = ?slug))]
pub async fn change_settings(
    db: &Db,
    user: &User,
    slug: &Slug,
    patch: &serde_json::Value,
) -> Result<League, ServiceError> {
    let now = db.clock().now();
    require_admin(user)?;
    let mut tx = db.write().await?;
    let row = league_row(&mut tx, slug).await?;
    let id = row.id;
    let before = row.settings.clone();
    let settings = checked_settings(&League::from_row(row)?.settings, patch)?;
    let after = to_json("settings", &settings)?;
    db_leagues::set_settings(&mut tx, id, &after).await?;
    let queue_now = crate::service::night::calls::Now::of(db);
    crate::service::night::calls::settings_changed(&mut tx, id, queue_now).await?;
    audit::record(
        &mut tx,
        user,
        now,
        audit::Change::new("change_settings", audit::Subject::League(id))
            .before(&before)
            .after(&after),
    )
    .await?;
    commit_league(tx, id).await
}

#[tracing::instrument(skip_all, fields(user_id = %user.id, slug = ?slug))]
pub async fn assign_supervisor(
    db: &Db,
    user: &User,
    slug: &Slug,
    username: &str,
) -> Result<(), ServiceError> {
    let now = db.clock().now();
    require_admin(user)?;
    let mut tx = db.write().await?;
    let league = league_row(&mut tx, slug).await?;
    let target = users::by_name(&mut tx, username).await?.ok_or_else(|| {
        ServiceError::invalid(
            ErrorCode::InvalidUser,
            "username",
            format!("no user named \"{username}\""),
        )
    })?;
    db_leagues::assign_supervisor(&mut tx, league.id, target.id).await?;
    audit::record(
        &mut tx,
        user,
        now,
        audit::Change::new("assign_supervisor", audit::Subject::League(league.id)).after(username),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

// ---- Appended for the admin pages (src/web/admin.rs) ----

/// Checks a league's input exactly as [`create_league`] (`existing` is `None`) or
/// [`update_league`] of the league `existing` would, without writing, and returns the
/// league's slug and its resolved rules per stage (for a preview).
pub fn check_league_input(
    input: &NewLeagueInput,
    existing: Option<&Slug>,
) -> Result<(Slug, RulesByStage), ServiceError> {
    let Checked { slug, rules, .. } = check_input(input, existing)?;
    let [(_, regular), (_, playoff), (_, r#final)] = rules;
    Ok((
        slug,
        RulesByStage {
            regular,
            playoff,
            r#final,
        },
    ))
}

/// Removes a supervisor from a league (their account stays).
#[tracing::instrument(skip_all, fields(user_id = %user.id, slug = ?slug, supervisor_id = %user_id))]
pub async fn unassign_supervisor(
    db: &Db,
    user: &User,
    slug: &Slug,
    user_id: UserId,
) -> Result<(), ServiceError> {
    let now = db.clock().now();
    require_admin(user)?;
    let mut tx = db.write().await?;
    let league = league_row(&mut tx, slug).await?;
    if !db_leagues::is_supervisor(&mut tx, league.id, user_id).await? {
        return Err(ServiceError::NotFound);
    }
    let username = users::by_id(&mut tx, user_id)
        .await?
        .map(|u| u.username)
        .unwrap_or_default();
    db_leagues::unassign_supervisor(&mut tx, league.id, user_id).await?;
    // Their matches of the league are nobody's now (a supervisor the league lacks runs none).
    crate::db::match_write::clear_supervisor(&mut tx, league.id, user_id).await?;
    audit::record(
        &mut tx,
        user,
        now,
        audit::Change::new("unassign_supervisor", audit::Subject::League(league.id))
            .before(&username),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(spec: serde_json::Value) -> String {
        let rules: StageRules = serde_json::from_value(spec).expect("a rules spec");
        match check_rules(&rules) {
            Err(ServiceError::Invalid(e)) => e.message,
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn a_stage_s_rules_error_names_the_stage_once() {
        assert_eq!(
            message(serde_json::json!({"regular": {"preset": "unc-im-300", "bogus": 1}})),
            "regular rules: unknown field \"bogus\""
        );
        assert_eq!(
            message(serde_json::json!({"regular": "unc-im-300",
                                       "playoff": {"preset": "unc-im-300", "target": 0}})),
            "playoff rules: target: must be above 0"
        );
    }
}
