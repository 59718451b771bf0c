/*
 * The store's normalised tables: filled from a run's structs when it is
 * recorded (or migrated), read by `history`. Undefined figures are NULL,
 * as they are null in the document.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/rows.h"
#include "base/util.h"

const char store_tables_v2[] =
	"CREATE TABLE environment (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
	"  name TEXT NOT NULL,\n"
	"  value TEXT NOT NULL,\n"
	"  PRIMARY KEY (run_id, name)\n"
	") WITHOUT ROWID;\n"
	"CREATE TABLE cells (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
	"  idx INTEGER NOT NULL,\n"
	"  workload TEXT NOT NULL, tracer TEXT NOT NULL, threads INTEGER NOT NULL, target TEXT,\n"
	"  status TEXT NOT NULL, reason TEXT, reps INTEGER NOT NULL,\n"
	"  events INTEGER NOT NULL, hits INTEGER, lost INTEGER NOT NULL,\n"
	"  baseline_ns REAL, traced_ns REAL, overhead_ns REAL, overhead_lo REAL, overhead_hi REAL,\n"
	"  overhead_median REAL, slowdown REAL, consumer_ns REAL,\n"
	"  below_noise_floor INTEGER NOT NULL, disturbed INTEGER NOT NULL, note TEXT,\n"
	"  PRIMARY KEY (run_id, idx)\n"
	");\n"
	"CREATE INDEX cells_tracer ON cells (tracer, run_id);\n"
	"CREATE TABLE reps (\n"
	"  run_id INTEGER NOT NULL, cell_idx INTEGER NOT NULL, idx INTEGER NOT NULL,\n"
	"  baseline_ns REAL, traced_ns REAL,\n"
	"  events INTEGER NOT NULL, hits INTEGER, lost INTEGER NOT NULL, stops INTEGER,\n"
	"  consumer_ns REAL, traced_first INTEGER NOT NULL, outlier INTEGER NOT NULL,\n"
	"  wall_ms REAL, steal_ms REAL,\n"
	"  PRIMARY KEY (run_id, cell_idx, idx),\n"
	"  FOREIGN KEY (run_id, cell_idx) REFERENCES cells (run_id, idx) ON DELETE CASCADE\n"
	");\n";

static int bind_num(sqlite3_stmt *st, int i, double v)
{
	return isfinite(v) ? sqlite3_bind_double(st, i, v) : sqlite3_bind_null(st, i);
}

static int bind_count(sqlite3_stmt *st, int i, int64_t v)
{
	return v >= 0 ? sqlite3_bind_int64(st, i, v) : sqlite3_bind_null(st, i);
}

/* Runs @st once and readies it for the next row. */
static int step_reset(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int insert_env(struct store *s, int64_t id, const struct environment *e)
{
	char cpus[16];
	const char *const rows[][2] = {
		{ "kernel", e->kernel }, { "kernel_version", e->kernel_version }, { "arch", e->arch },
		{ "cpu_model", e->cpu_model }, { "cpus", cpus }, { "clocksource", e->clocksource },
		{ "virtualization", e->virtualization }, { "mitigations", e->mitigations },
		{ "governor", e->governor }, { "tracetax_version", e->tracetax_version },
		{ "hostname", e->hostname }, { "started", e->started },
		{ "other_tracers", e->other_tracers }, { "tools", e->tools }, { "vm", e->vm },
	};
	sqlite3_stmt *st;
	int ret = 0;

	snprintf(cpus, sizeof(cpus), "%d", e->cpus);
	if (sqlite3_prepare_v2(s->db, "INSERT INTO environment VALUES (?, ?, ?)", -1, &st, NULL))
		return -1;
	for (size_t i = 0; !ret && i < sizeof(rows) / sizeof(rows[0]); i++)
		ret = sqlite3_bind_int64(st, 1, id) || sqlite3_bind_text(st, 2, rows[i][0], -1, SQLITE_STATIC) ||
		      sqlite3_bind_text(st, 3, rows[i][1], -1, SQLITE_STATIC) || step_reset(st) ? -1 : 0;
	sqlite3_finalize(st);
	return ret;
}

static int insert_cell(sqlite3_stmt *st, int64_t id, int idx, const struct cell *c)
{
	bool ok = c->status == CELL_OK && c->nreps > 0;
	double nan = NAN;

	return sqlite3_bind_int64(st, 1, id) || sqlite3_bind_int(st, 2, idx) ||
	       store_bind_text(st, 3, c->workload) || store_bind_text(st, 4, c->tracer) ||
	       sqlite3_bind_int(st, 5, c->threads) || store_bind_text(st, 6, c->target) ||
	       store_bind_text(st, 7, cell_status_name(c->status)) || store_bind_text(st, 8, c->reason) ||
	       sqlite3_bind_int(st, 9, c->nreps) || sqlite3_bind_int64(st, 10, c->events) ||
	       bind_count(st, 11, c->hits) || sqlite3_bind_int64(st, 12, c->lost) ||
	       bind_num(st, 13, ok ? c->base.mean : nan) || bind_num(st, 14, ok ? c->traced.mean : nan) ||
	       bind_num(st, 15, ok ? c->overhead.mean : nan) ||
	       bind_num(st, 16, ok ? c->overhead.ci95[0] : nan) ||
	       bind_num(st, 17, ok ? c->overhead.ci95[1] : nan) ||
	       bind_num(st, 18, ok ? c->overhead.median : nan) ||
	       bind_num(st, 19, ok ? c->slowdown : nan) ||
	       bind_num(st, 20, ok ? c->consumer_ns_per_event : nan) ||
	       sqlite3_bind_int(st, 21, ok && c->below_floor) || sqlite3_bind_int(st, 22, c->disturbed) ||
	       store_bind_text(st, 23, c->note) || step_reset(st) ? -1 : 0;
}

static int insert_rep(sqlite3_stmt *st, int64_t id, int cell, int idx, const struct rep *r)
{
	return sqlite3_bind_int64(st, 1, id) || sqlite3_bind_int(st, 2, cell) ||
	       sqlite3_bind_int(st, 3, idx) || bind_num(st, 4, r->base_ns_per_op) ||
	       bind_num(st, 5, r->traced_ns_per_op) || sqlite3_bind_int64(st, 6, r->events) ||
	       bind_count(st, 7, r->hits) || sqlite3_bind_int64(st, 8, r->lost) ||
	       bind_count(st, 9, r->stops) || bind_num(st, 10, r->consumer_ns) ||
	       sqlite3_bind_int(st, 11, r->traced_first) || sqlite3_bind_int(st, 12, r->outlier) ||
	       bind_num(st, 13, r->wall_ms) || bind_num(st, 14, r->steal_ms) ||
	       step_reset(st) ? -1 : 0;
}

int store_insert_rows(struct store *s, int64_t id, const struct results *r)
{
	sqlite3_stmt *cell = NULL, *rep = NULL;
	int ret = insert_env(s, id, &r->env);

	if (!ret && (sqlite3_prepare_v2(s->db, "INSERT INTO cells VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
					"?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &cell, NULL) ||
		     sqlite3_prepare_v2(s->db, "INSERT INTO reps VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
					"?, ?, ?, ?)", -1, &rep, NULL)))
		ret = -1;
	for (int i = 0; !ret && i < r->ncells; i++) {
		ret = insert_cell(cell, id, i, &r->cells[i]);
		for (int k = 0; !ret && k < r->cells[i].nreps; k++)
			ret = insert_rep(rep, id, i, k, &r->cells[i].reps[k]);
	}
	sqlite3_finalize(cell);
	sqlite3_finalize(rep);
	return ret;
}
