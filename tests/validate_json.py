#!/usr/bin/env python3
"""Validate a tracetax results document against docs/schema.json.

usage: tests/validate_json.py FILE [SCHEMA]

Exit 0 when FILE is valid; 1 with one line on stderr naming the first
problem (FILE: /json/path: message) when it is not or cannot be read;
2 on bad usage.

The schema itself is checked against its metaschema first (0.4 s of a
0.6 s validation): with TT_SCHEMA_CHECKED=DIR (the integration tests set
their temporary directory), a schema of the same bytes checked once is not
checked again.
"""
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SCHEMA = os.path.join(HERE, "..", "docs", "schema.json")


def fail(msg):
    print(msg[:400], file=sys.stderr)
    sys.exit(1)


def load(path, what):
    try:
        with open(path, "rb") as f:
            raw = f.read()
        return json.loads(raw.decode("utf-8")), raw
    except OSError as e:
        fail(f"cannot read {what} '{path}': {e.strerror}")
    except ValueError as e:
        fail(f"{path}: not JSON: {e}")


def main(argv):
    if len(argv) not in (2, 3):
        print("usage: validate_json.py FILE [SCHEMA]", file=sys.stderr)
        return 2
    try:
        import jsonschema
    except ImportError:
        fail("cannot validate: python3 module 'jsonschema' not installed")
    doc, _ = load(argv[1], "document")
    schema_path = argv[2] if len(argv) == 3 else DEFAULT_SCHEMA
    schema, raw = load(schema_path, "schema")
    # Swapped arguments validated the schema against the document, and
    # passed: almost anything is a valid schema. Ours says what it is.
    if not isinstance(schema, dict) or "$schema" not in schema:
        fail(f"'{schema_path}' is not a JSON schema: no '$schema' (usage: FILE [SCHEMA])")
    # A budget document (docs/budget.md), an attached one (budget --attached) and a pair document (`tracetax
    # pair`) have their own definitions in the schema.
    defs = schema.get("$defs", {})
    own = None
    if isinstance(doc, dict) and doc.get("kind") == "budget" and "budget" in defs:
        own = "budget"
    elif isinstance(doc, dict) and doc.get("kind") == "attached" and "attached" in defs:
        own = "attached"
    elif isinstance(doc, dict) and "start_probe" in doc and "pair_document" in defs:
        own = "pair_document"
    if own:
        schema = {"$schema": schema["$schema"], "$defs": defs, "$ref": "#/$defs/" + own}
    cls = jsonschema.validators.validator_for(schema)
    checked = os.environ.get("TT_SCHEMA_CHECKED")
    # (the definition checked is part of the mark: a budget's is not the whole schema)
    mark = checked and os.path.join(
        checked, "schema-ok-%s-%s" % (own or "all", hashlib.sha256(raw).hexdigest()))
    if not (mark and os.path.exists(mark)):
        try:
            cls.check_schema(schema)
        except jsonschema.exceptions.SchemaError as e:
            fail(f"invalid schema: {e.message}")
        if mark:
            try:
                open(mark, "w").close()
            except OSError:
                pass    # checked again next time
    err = jsonschema.exceptions.best_match(cls(schema).iter_errors(doc))
    if err is not None:
        where = "/" + "/".join(str(p) for p in err.absolute_path)
        fail(f"{argv[1]}: {where}: {err.message}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
