"""GraphQL API (strawberry on starlette), auth, error mapping and the `recollect` CLI.

Assembles the pieces of `graph` and `extraction`; nothing imports `api`.
"""
