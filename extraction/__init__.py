"""Text → entities and relations (spaCy), and text → vectors (MiniLM).

Plain data in, plain data out: must not import `graph` or `api`.
"""
