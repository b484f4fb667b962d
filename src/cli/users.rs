//! `user` (add, list, reset, disable, enable) and `token create`: accounts from the command
//! line, for the first admin and the day nobody can log in.

use clap::Subcommand;

use super::{ServeArgs, service_error};
use crate::domain::{ErrorCode, Role, TextEnum};
use crate::invocation::command;
use crate::service::ServiceError;
use crate::service::people::{accounts, users};

/// `--role`: what a user may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RoleArg {
    Admin,
    Supervisor,
}

impl From<RoleArg> for Role {
    fn from(role: RoleArg) -> Role {
        match role {
            RoleArg::Admin => Role::Admin,
            RoleArg::Supervisor => Role::Supervisor,
        }
    }
}

#[derive(Subcommand, Debug, PartialEq, Eq)]
pub enum UserCommand {
    /// Add a user; prints a generated password unless --password-stdin is given.
    Add {
        name: String,
        #[arg(long, value_enum)]
        role: RoleArg,
        /// Read the password from standard input (first line).
        #[arg(long)]
        password_stdin: bool,
    },
    /// List every user: name, role, state, leagues, last log-in.
    List,
    /// Give the user NAME a new one-time password (printed once), ending its sessions and
    /// revoking its API tokens.
    Reset { name: String },
    /// Deactivate the user NAME: it can no longer log in; its sessions end and its API
    /// tokens are revoked.
    Disable { name: String },
    /// Reactivate the user NAME.
    Enable { name: String },
}

#[derive(Subcommand, Debug, PartialEq, Eq)]
pub enum TokenCommand {
    /// Create an API token acting as the user NAME; prints it once.
    Create {
        name: String,
        /// A label to recognise the token by.
        #[arg(long, default_value = "cli")]
        label: String,
    },
}

pub(super) async fn user(args: ServeArgs, command: UserCommand) -> anyhow::Result<()> {
    match command {
        UserCommand::Add {
            name,
            role,
            password_stdin,
        } => add_user(args, name, role.into(), password_stdin).await,
        UserCommand::List => list_users(args).await,
        UserCommand::Reset { name } => reset_user(args, name).await,
        UserCommand::Disable { name } => set_user_active(args, name, false).await,
        UserCommand::Enable { name } => set_user_active(args, name, true).await,
    }
}

pub(super) async fn token(args: ServeArgs, command: TokenCommand) -> anyhow::Result<()> {
    let TokenCommand::Create { name, label } = command;
    let db = args.open().await?;
    let token = accounts::create_token(&db, &name, &label)
        .await
        .map_err(|e| match e {
            ServiceError::NotFound => anyhow::anyhow!("no user named {name}"),
            other => service_error(other),
        })?;
    println!("{token}");
    Ok(())
}

async fn add_user(
    args: ServeArgs,
    name: String,
    role: Role,
    password_stdin: bool,
) -> anyhow::Result<()> {
    let db = args.open().await?;
    let taken = |e: ServiceError| match &e {
        ServiceError::Invalid(f) if f.code == ErrorCode::UsernameTaken => anyhow::anyhow!(
            "{e}; to give that user a new password: {}",
            command(&format!("user reset {name}"))
        ),
        _ => service_error(e),
    };
    if password_stdin {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line)?;
        let password = line.trim_end_matches(['\n', '\r']);
        let user = accounts::create_user(&db, None, &name, role, password)
            .await
            .map_err(taken)?;
        println!("user {} ({}) added", user.username, role.as_str());
    } else {
        let new = users::NewAccount {
            username: name.clone(),
            role,
            email: None,
            deliver: None,
        };
        let shown = users::Delivery::Shown;
        let (user, handed) = users::add(&db, None, &new, &[], shown)
            .await
            .map_err(taken)?;
        println!(
            "user {} ({}) added; one-time password (to be changed at the first log-in): {}",
            user.username,
            role.as_str(),
            handed.shown().unwrap_or_default()
        );
    }
    Ok(())
}

/// "no user named NAME" for a missing user, else the service's message.
fn user_error(name: &str) -> impl Fn(ServiceError) -> anyhow::Error + '_ {
    move |e| match e {
        ServiceError::NotFound => {
            anyhow::anyhow!("no user named {name} (see {})", command("user list"))
        }
        other => service_error(other),
    }
}

async fn list_users(args: ServeArgs) -> anyhow::Result<()> {
    let db = args.open().await?;
    for user in users::all(&db).await.map_err(service_error)? {
        let state = match (user.active, user.must_change_password) {
            (false, _) => "deactivated",
            (true, true) => "must change password",
            (true, false) => "active",
        };
        let last = user.last_login_at.map_or_else(
            || "never logged in".to_string(),
            |t| format!("last log-in {t}"),
        );
        let leagues = if user.leagues.is_empty() {
            "no leagues".to_string()
        } else {
            user.leagues.join(", ")
        };
        println!(
            "{}\t{}\t{state}\t{leagues}\t{last}",
            user.username,
            user.role.as_str()
        );
    }
    Ok(())
}

async fn reset_user(args: ServeArgs, name: String) -> anyhow::Result<()> {
    let db = args.open().await?;
    let handed = users::reset_password(&db, None, &name, users::Delivery::Shown)
        .await
        .map_err(user_error(&name))?;
    let password = handed.shown().unwrap_or_default();
    println!("user {name}: new one-time password (to be changed at the first log-in): {password}");
    Ok(())
}

async fn set_user_active(args: ServeArgs, name: String, active: bool) -> anyhow::Result<()> {
    let db = args.open().await?;
    let change = users::AccountChange {
        active: Some(active),
        ..Default::default()
    };
    users::change(&db, None, &name, &change)
        .await
        .map_err(user_error(&name))?;
    if active {
        println!("user {name} enabled");
    } else {
        println!("user {name} disabled: its sessions ended and its API tokens were revoked");
    }
    Ok(())
}
