-- A team's page and calendar read its own matches through these (two index searches), not
-- the whole league's schedule.
CREATE INDEX matches_team_a ON matches(team_a, scheduled_at);
CREATE INDEX matches_team_b ON matches(team_b, scheduled_at);
