-- When each user last signed in through the campus identity provider (OpenID Connect), for
-- the admin's users page; NULL for never. The sign-in itself matches users by email.
ALTER TABLE users ADD COLUMN campus_login_at TEXT COLLATE "C";
