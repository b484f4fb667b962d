//! `demo` and `generate`: a sample season for a first look, a large one for benchmarks.

use super::ServeArgs;
use crate::generate::SeasonSpec;

pub(super) async fn generate(args: ServeArgs, spec: SeasonSpec) -> anyhow::Result<()> {
    let db = args.open().await?;
    let (admin, password) = crate::generate::admin(&db).await?;
    if let Some(password) = password {
        println!(
            "created the admin account \"{}\"; one-time password (to be changed at the first log-in): {password}",
            admin.username
        );
    }
    let started = std::time::Instant::now();
    let g = crate::generate::season(&db, &admin, &spec).await?;
    println!(
        "league /leagues/{}: {} teams, {} matches ({} complete, {} in progress), {} hands in {:.1} s",
        spec.slug,
        spec.teams,
        g.matches,
        g.complete,
        g.in_progress,
        g.hands,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

pub(super) async fn demo(args: ServeArgs, tournament: bool) -> anyhow::Result<()> {
    let db = args.open().await?;
    let summary = if tournament {
        crate::demo::tournament::load(&db).await?
    } else {
        crate::demo::load(&db).await?
    };
    println!("{summary}");
    Ok(())
}
