package core

// maxReplans bounds the restarts of one query over streams: each restart
// widens a type one step up a lattice of three steps (absent, a type, real,
// dynamic), so a few restarts settle the fields of a projected query; a
// query that keeps widening is better served by loading the table.
const maxReplans = 4
