//! A new install's first steps: the admin dashboard lists what is still to do (a league or
//! the demo, a supervisor), each with the page or the command that
//! does it, the command written as this service was started (`cargo run --release -- …`
//! under cargo); done steps disappear.

use serde_json::json;
use spades_im::service::Role;

use crate::helpers::{html_element, json_with_status, spawn_app};

#[actix_web::test]
async fn the_dashboard_lists_the_first_steps_still_to_do() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let coord = app.browser("coord").await;

    let page = coord.get("/admin").await.text().await.unwrap();
    let steps = html_element(&page, "first-steps", "</section>").expect("first steps");
    assert!(steps.contains("<a href=\"/admin/leagues/new\">"), "{steps}");
    assert!(
        steps.contains("<code>cargo run --release -- demo</code>"),
        "the demo command as started under cargo: {steps}"
    );
    assert!(steps.contains("id=\"step-supervisor\""), "{steps}");
    assert!(
        steps.contains("<a href=\"/admin/users#add-user\">"),
        "{steps}"
    );
    assert!(
        !page.contains("spades-im demo"),
        "no command the user does not have"
    );

    // A supervisor: that step goes; a league: the rest go, and so does the section.
    app.user("sue", Role::Supervisor).await;
    let page = coord.get("/admin").await.text().await.unwrap();
    assert!(!page.contains("id=\"step-supervisor\""), "{page}");
    assert!(page.contains("id=\"step-league\""), "{page}");
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Fall", "slug": "fall", "rules": {"regular": "unc-im-300"}}),
        )
        .await;
    json_with_status(r, 201, "a league").await;
    let page = coord.get("/admin").await.text().await.unwrap();
    assert!(!page.contains("id=\"first-steps\""), "{page}");
}
