// The migrations of migrations/sqlite and migrations/postgres, embedded in the binary:
// writes `$OUT_DIR/migrations.rs`, each folder's files as (version, description,
// `include_str!` of the file), read as sqlx's `migrate!` macro reads them (`0007_a_name.sql`
// is version 7, "a name"); `src/db/migrations.rs` makes sqlx's `Migrator` of them. It does
// what that macro did without the macro's compile-time copies of the database drivers.
use std::error::Error;
use std::path::Path;

fn main() -> Result<(), Box<dyn Error>> {
    // A new migration file rebuilds the binary, which would otherwise run without it.
    println!("cargo:rerun-if-changed=migrations");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    let mut out = String::new();
    for (constant, folder) in [("SQLITE", "sqlite"), ("POSTGRES", "postgres")] {
        let mut files = Vec::new();
        for entry in std::fs::read_dir(root.join(folder))? {
            let path = entry?.path();
            if path.extension().is_some_and(|e| e == "sql") {
                files.push(path);
            }
        }
        files.sort();
        out.push_str(&format!("pub(super) const {constant}: &[Embedded] = &[\n"));
        for path in files {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            let (version, description) = name
                .strip_suffix(".sql")
                .and_then(|stem| stem.split_once('_'))
                .filter(|(_, d)| !d.ends_with(".up") && !d.ends_with(".down"))
                .ok_or(format!(
                    "{name}: a migration is <version>_<description>.sql"
                ))?;
            let version: i64 = version
                .parse()
                .map_err(|_| format!("{name}: its version"))?;
            let description = description.replace('_', " ");
            let sql = path.display();
            out.push_str(&format!(
                "    ({version}, {description:?}, include_str!({sql:?})),\n"
            ));
        }
        out.push_str("];\n");
    }
    let target = Path::new(&std::env::var("OUT_DIR")?).join("migrations.rs");
    std::fs::write(target, out)?;
    Ok(())
}
