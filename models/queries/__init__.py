"""Read-side queries: every function takes the workspace id first and returns named rows.

The pattern, in every module here: each SELECT is a `models.statements.Select` declared
beside the `msgspec.Struct(array_like=True, frozen=True)` its rows decode into, fields in the
statement's column order (`SkuRow` and `list_statements` in inventory.py are the smallest
example). Functions return those rows (`reader.all` / `reader.one`), and only the response
builders in api/schemas/ turn them into bodies, by field name.
"""
