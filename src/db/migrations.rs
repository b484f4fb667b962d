//! The schema's migrations as sqlx runs them: each folder of `migrations/`, embedded by
//! `build.rs` and read as sqlx's `migrate!` macro read it, so the checksums sqlx keeps in
//! `_sqlx_migrations` are the ones the macro made (a test compares them with sqlx's own
//! reading of the folders).

use std::borrow::Cow;
use std::sync::LazyLock;

use sqlx::SqlStr;
use sqlx::migrate::{Migration, MigrationType, Migrator};

mod embedded {
    /// A migration as build.rs embeds it: version, description, SQL.
    pub(super) type Embedded = (i64, &'static str, &'static str);
    include!(concat!(env!("OUT_DIR"), "/migrations.rs"));
}

/// migrations/sqlite.
pub(super) static SQLITE: LazyLock<Migrator> = LazyLock::new(|| migrator(embedded::SQLITE));
/// migrations/postgres.
pub(super) static POSTGRES: LazyLock<Migrator> = LazyLock::new(|| migrator(embedded::POSTGRES));

/// The migrator of `files`, in the order of their versions. A file that starts with
/// `-- no-transaction` runs outside a transaction, as with the macro.
fn migrator(files: &[embedded::Embedded]) -> Migrator {
    let migration = |&(version, description, sql): &embedded::Embedded| {
        let no_tx = sql.starts_with("-- no-transaction");
        let sql = SqlStr::from_static(sql);
        let simple = MigrationType::Simple;
        Migration::new(version, Cow::Borrowed(description), simple, sql, no_tx)
    };
    Migrator::with_migrations(files.iter().map(migration).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What sqlx itself reads from a folder at run time (as its `migrate!` macro does at
    /// compile time), as comparable fields.
    fn fields(m: &Migrator) -> Vec<(i64, String, bool, Vec<u8>, bool)> {
        m.iter()
            .map(|m| {
                let reversible = m.migration_type.is_reversible();
                let checksum = m.checksum.to_vec();
                (
                    m.version,
                    m.description.to_string(),
                    reversible,
                    checksum,
                    m.no_tx,
                )
            })
            .collect()
    }

    #[tokio::test]
    async fn the_embedded_migrations_are_what_sqlx_reads_from_each_folder() {
        for (folder, embedded) in [("sqlite", &*SQLITE), ("postgres", &*POSTGRES)] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("migrations")
                .join(folder);
            let read = Migrator::new(path).await.expect("sqlx reads the folder");
            assert!(read.iter().count() > 10, "{folder}: its migrations");
            assert_eq!(fields(embedded), fields(&read), "{folder}");
        }
    }
}
