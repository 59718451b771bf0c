/* The store's connection (db.h): its errors as one line. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "store/db.h"

/* sqlite's "unable to open database file" says not why: the system's errno does. */
int store_fail(struct store *s, const char *what, char *err, size_t errlen)
{
	int code = sqlite3_errcode(s->db) & 0xff, e = sqlite3_system_errno(s->db);

	if ((code == SQLITE_CANTOPEN || code == SQLITE_IOERR) && e)
		snprintf(err, errlen, "%s '%s': %s (%s)", what, s->path, sqlite3_errmsg(s->db),
			 strerror(e));
	else
		snprintf(err, errlen, "%s '%s': %s", what, s->path, sqlite3_errmsg(s->db));
	return -1;
}

int store_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	return s && *s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}
