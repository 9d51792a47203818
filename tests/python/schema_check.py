"""A validator for the subset of JSON Schema (draft 2020-12) that
cmadebug/schema/*.schema.json uses; standard library only.

Keywords: type (a name or a list), const, enum, properties, required,
additionalProperties (false or a schema), items (a schema), anyOf, minimum,
and $ref to "#/$defs/NAME" of the same document.  Annotations ($schema, $id,
title, description) are ignored.  A keyword outside the subset is an error,
so the schema cannot silently grow past what the tests check.
"""

ANNOTATIONS = {"$schema", "$id", "title", "description", "$defs"}
KEYWORDS = {"type", "const", "enum", "properties", "required", "additionalProperties",
            "items", "anyOf", "minimum", "$ref"}
TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


class SchemaError(Exception):
    """The schema uses something this validator does not implement."""


def _same(a, b):
    # const/enum compare JSON values: 1 is not true.
    return type(a) is type(b) and a == b


def errors(instance, schema, root=None, path="$"):
    """Every way INSTANCE breaks SCHEMA, as "path: message" strings."""
    root = schema if root is None else root
    if not isinstance(schema, dict):
        raise SchemaError(f"{path}: schema is not an object")
    unknown = set(schema) - KEYWORDS - ANNOTATIONS
    if unknown:
        raise SchemaError(f"{path}: unsupported keywords {sorted(unknown)}")
    out = []
    if "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/$defs/") or ref[8:] not in root.get("$defs", {}):
            raise SchemaError(f"{path}: unresolvable $ref {ref!r}")
        out += errors(instance, root["$defs"][ref[8:]], root, path)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        for t in types:
            if t not in TYPES:
                raise SchemaError(f"{path}: unknown type {t!r}")
        if not any(TYPES[t](instance) for t in types):
            return out + [f"{path}: {instance!r} is not of type {'/'.join(types)}"]
    if "const" in schema and not _same(instance, schema["const"]):
        out.append(f"{path}: {instance!r} is not {schema['const']!r}")
    if "enum" in schema and not any(_same(instance, e) for e in schema["enum"]):
        out.append(f"{path}: {instance!r} is not one of {schema['enum']!r}")
    if "minimum" in schema and TYPES["number"](instance) and instance < schema["minimum"]:
        out.append(f"{path}: {instance!r} is below {schema['minimum']}")
    if "anyOf" in schema:
        branches = [errors(instance, s, root, path) for s in schema["anyOf"]]
        if all(branches):
            out.append(f"{path}: matches none of anyOf: " + "; ".join(b[0] for b in branches))
    if isinstance(instance, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in instance:
                out.append(f"{path}: required key {key!r} missing")
        extra = schema.get("additionalProperties", True)
        for key, value in instance.items():
            sub = f"{path}.{key}"
            if key in props:
                out += errors(value, props[key], root, sub)
            elif extra is False:
                out.append(f"{sub}: key not in the schema")
            elif isinstance(extra, dict):
                out += errors(value, extra, root, sub)
    if isinstance(instance, list) and "items" in schema:
        for i, value in enumerate(instance):
            out += errors(value, schema["items"], root, f"{path}[{i}]")
    return out


def check_schema(schema):
    """Walks every subschema once, so unsupported keywords show even where
    no instance reaches them."""
    def walk(s, path):
        if not isinstance(s, dict):
            raise SchemaError(f"{path}: schema is not an object")
        unknown = set(s) - KEYWORDS - ANNOTATIONS
        if unknown:
            raise SchemaError(f"{path}: unsupported keywords {sorted(unknown)}")
        if "$ref" in s and (not s["$ref"].startswith("#/$defs/") or s["$ref"][8:] not in schema.get("$defs", {})):
            raise SchemaError(f"{path}: unresolvable $ref {s['$ref']!r}")
        for name, sub in s.get("$defs", {}).items():
            walk(sub, f"{path}/$defs/{name}")
        for name, sub in s.get("properties", {}).items():
            walk(sub, f"{path}/properties/{name}")
        for key in ("items", "additionalProperties"):
            if isinstance(s.get(key), dict):
                walk(s[key], f"{path}/{key}")
        for i, sub in enumerate(s.get("anyOf", [])):
            walk(sub, f"{path}/anyOf/{i}")
    walk(schema, "#")
