"""The write path in a room of its own: the pipeline of `remember` (pipeline.py), the rows of its
one statement (rows.py), the edits of what is stored (edits.py) and the end of a session, which
writes its episode (sessions.py). Reads live in graph/recall/."""
