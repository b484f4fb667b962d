//! The league page's "Add a division" form (docs/api.md §18.1): a refused name is shown
//! again by its field; a division made goes back to the page, which names it.

use crate::domain::Slug;
use actix_web::{HttpResponse, post, web};

use super::league::{DivisionForm, Typed, render_league};
use super::{Errors, fixable};
use crate::service::term::divisions::{self, NewDivisionInput};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::{Admin, CsrfForm};
use crate::web::respond::see_other;

#[post("/admin/leagues/{slug}/divisions")]
pub(super) async fn add_division(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    CsrfForm(form): CsrfForm<DivisionForm>,
) -> Result<HttpResponse, PageError> {
    let input = NewDivisionInput {
        name: form.name.clone(),
    };
    match divisions::create(&state.db, &who.user, &slug, &input).await {
        // The page names the division it is told of (`done=division`, as `Done::Division`
        // reads).
        Ok(made) => Ok(see_other(&format!(
            "/admin/leagues/{slug}?done=division&division={}",
            made.id
        ))),
        Err(e) if fixable(&e) => {
            let typed = Typed {
                division: form,
                ..Typed::default()
            };
            let errors = Errors::of("division", &["name"], &e);
            render_league(&state, &who, &slug, typed, errors, None).await
        }
        Err(e) => Err(e.into()),
    }
}
