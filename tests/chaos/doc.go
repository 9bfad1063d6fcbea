// Package chaos is the black-box crash test of the CLI. It builds the real
// `tributary` binary, runs it as a child process ingesting 100 NDJSON files
// (some gzipped) from a local directory into a local Delta table with a small
// cloudFiles.maxFilesPerTrigger, and SIGKILLs it at random moments (the
// delays come from a logged seed; TRIBUTARY_CHAOS_SEED replays a run), while
// more files arrive between and during runs. After the kills it runs the
// stream to completion and reads the table back with delta-rs (the Python
// deltalake package of the pinned test environment): every row exactly once,
// contiguous _delta_log versions, one sealed plan and one txn version per
// batch, every file in exactly one batch. Variants add
// cloudFiles.cleanSource=MOVE (every ingested file moved exactly once; only
// a file pathGlobFilter leaves out and a corrupt file that
// ignoreCorruptFiles=true skips are left behind) and a column that appears mid-stream (the
// default addNewColumns schema evolution stops one run; the next continues).
// TestChaosDeltaSource kills a bronze -> silver stream (--format delta)
// the same way while the bronze table receives appends.
//
// The package has no non-test code. Only the kill timing is random: what the
// test asserts is the same for every seed.
package chaos
