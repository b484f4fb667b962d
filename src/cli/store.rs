//! The database's own commands: `check` (the caches against their source), `backup`,
//! `restore` (an SQLite file put in place) and `migrate-to` (SQLite copied to PostgreSQL).

use std::path::PathBuf;

use super::ServeArgs;
use crate::db::{Db, Location};
use crate::invocation::command;
use crate::service::check::{check as compare, rebuild_records};

pub(super) async fn migrate_to(args: ServeArgs, url: Location) -> anyhow::Result<()> {
    if !matches!(args.db, Location::File(_)) || !matches!(url, Location::Postgres(_)) {
        anyhow::bail!(crate::db::copy::CopyError::WrongStores);
    }
    let source = args.open().await?;
    let target = Db::open(&url, args.clock()?).await?;
    let copied = crate::db::copy::sqlite_to_postgres(&source, &target).await?;
    let rows: u64 = copied.tables.iter().map(|(_, n)| n).sum();
    let report = compare(&target).await?;
    for difference in &report.differences {
        println!("{difference}");
    }
    if !report.differences.is_empty() {
        anyhow::bail!(
            "the copy in {url} disagrees with its own hands ({} differences above)",
            report.differences.len()
        );
    }
    for (table, n) in &copied.tables {
        println!("{table}: {n} rows");
    }
    println!(
        "copied {rows} rows from {} to {url}: every table's count, every match's totals and \
         every team's record agree, and the {} matches' {} hands replay to their totals; start \
         the server with --db set to the PostgreSQL URL",
        args.db, report.matches, report.hands
    );
    Ok(())
}

pub(super) async fn check(args: ServeArgs, rebuild: bool) -> anyhow::Result<()> {
    let db = args.open().await?;
    if rebuild {
        let teams = rebuild_records(&db).await?;
        println!(
            "rebuilt the standings records of {teams} teams and the counts of matches from the \
             matches"
        );
    }
    // Every row through the import's gate first, every league read: a row that does not
    // read would stop the comparison below, and each is named here.
    let bad = crate::service::league_doc::bad_rows(&db).await?;
    for row in &bad {
        println!("{row}");
    }
    if !bad.is_empty() {
        anyhow::bail!(
            "{} rows would be refused by an import today (listed above: league, table, row id, \
             where in its league's document, and what is wrong); put them right or restore a \
             backup, then run `{}` again to compare the cached totals",
            bad.len(),
            command("check")
        );
    }
    let report = compare(&db).await?;
    for difference in &report.differences {
        println!("{difference}");
    }
    if report.differences.is_empty() {
        println!(
            "checked {} matches ({} hands): every cached total agrees with the hands, every \
             team's record and every league's count of matches with the matches",
            report.matches, report.hands
        );
        Ok(())
    } else {
        anyhow::bail!(
            "{} cached values differ from the hands or the matches (listed above); the \
             teams' records and the counts of matches are rewritten by `{}`",
            report.differences.len(),
            command("check --rebuild")
        )
    }
}

pub(super) async fn backup(args: ServeArgs, file: PathBuf) -> anyhow::Result<()> {
    if file.exists() {
        anyhow::bail!("{} already exists; choose a new file", file.display());
    }
    let db = args.open().await?;
    db.backup(&file).await?;
    println!("backup written to {} and checked", file.display());
    Ok(())
}

pub(super) async fn restore(db: Location, file: PathBuf, force: bool) -> anyhow::Result<()> {
    let Location::File(db) = db else {
        anyhow::bail!(
            "restore puts an SQLite backup file in place; a PostgreSQL database is restored \
             with pg_restore or from a base backup (see docs/deploy.md)"
        );
    };
    let done = crate::db::restore(&file, &db, force).await?;
    let schema = if done.migration < done.latest {
        format!(
            "its tables are at migration {} of {}: the server brings them up to date when it starts",
            done.migration, done.latest
        )
    } else {
        format!(
            "its tables are at migration {}, this program's last",
            done.migration
        )
    };
    println!(
        "restored {} as {}{}",
        file.display(),
        db.display(),
        if done.replaced {
            " (in place of the database that was there)"
        } else {
            ""
        }
    );
    println!("checked: integrity, foreign keys and the schema; {schema}");
    println!(
        "serve it with: {}",
        command(&format!("--db {}", db.display()))
    );
    Ok(())
}
