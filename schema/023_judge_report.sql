-- 023_judge_report: judging a worker's report (one INSERT of 4 to 6 results) in less time (issue 16).
-- Measured with auto_explain (log_nested_statements) and track_functions on a fleet of 1,000 GPUs: of the
-- trigger's 2.0 ms per report, 1.05 ms went to the peers (each result's group: 250 baselines read one by one and
-- sorted), 0.2 ms to a hash of every platform (a generic plan's guess), the rest to a dozen small statements.
-- Here each peer group (problem, device model, driver) is one row of peer_groups holding its members' figures
-- sorted (a baseline's median, else its last figure) with their platforms, plus the changes since
-- (peer_changes: a judged baseline's new figure, or NULL when it leaves the group for a new segment's or is
-- deleted). A round reads each of its groups once, merged with its pending changes (peer_merge: a binary search
-- per change, no sort), and appends its own changes: an insert, which no other writer waits for. ppbenchd's
-- notifier folds the changes into the groups once a second (peer_groups_compact, one folder at a time), so a
-- group's row is rewritten once a second, not once a report (a row of a few hundred members is kilobytes).
-- What is judged stays 015's: a result's peers are its group's members as the round before left them, without
-- its own platform. Also: the platform's name and host by key, the suspects from the round's own statement
-- (no second look at result_verdicts), metric_series written in the same statement (022), baselines_peers
-- dropped and room left for HOT updates of baselines.
CREATE TABLE peer_groups (
    suite     text NOT NULL,
    kernel    text NOT NULL,
    model     text NOT NULL,
    precision text NOT NULL,
    size      bigint NOT NULL,
    variant   text NOT NULL,
    device    text NOT NULL,                 -- the baselines' device (the segment's platform name)
    driver    text NOT NULL,
    ids       text[] NOT NULL,               -- the members' platforms, in the order of figs
    figs      double precision[] NOT NULL,   -- their figures (bytes/s), ascending
    PRIMARY KEY (suite, kernel, model, precision, size, variant, device, driver)
);
-- Figures (bytes/s) of a group of some hundred members change one at a time: not compressed (pglz on every
-- write cost more than the rows it saves), kept in the row up to a page.
ALTER TABLE peer_groups ALTER ids SET STORAGE EXTERNAL, ALTER figs SET STORAGE EXTERNAL;
ALTER TABLE peer_groups SET (toast_tuple_target = 8160);

-- Changes not yet folded into peer_groups, in the order they were made.
CREATE TABLE peer_changes (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    suite       text NOT NULL,
    kernel      text NOT NULL,
    model       text NOT NULL,
    precision   text NOT NULL,
    size        bigint NOT NULL,
    variant     text NOT NULL,
    device      text NOT NULL,
    driver      text NOT NULL,
    platform_id text NOT NULL,
    fig         double precision          -- the member's figure, NULL: it leaves the group
);
CREATE INDEX peer_changes_group ON peer_changes (suite, kernel, model, precision, size, variant, device, driver, id);

-- Judging reads no baseline by its group any more; a baseline is updated by every result of its problem: room
-- on each page for the new version (a HOT update touches no index).
DROP INDEX baselines_peers;
ALTER TABLE baselines SET (fillfactor = 70);

-- @after-functions: what follows runs once the current functions exist (schema/functions/)
SELECT peer_groups_rebuild();
