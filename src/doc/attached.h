/* The attached document (docs/schema.md, "attached"): `tracetax budget --attached --json`. */
#ifndef TRACETAX_DOC_ATTACHED_H
#define TRACETAX_DOC_ATTACHED_H

#include "results/attached.h"
#include "results/results.h"

#define ATTACHED_SCHEMA_VERSION 1

/* malloc'd JSON text of @a, measured on @env. */
char *attached_json_string(const struct attached *a, const struct environment *env);

#endif
