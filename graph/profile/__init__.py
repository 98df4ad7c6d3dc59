"""Knowing the person: profiles built from session tallies by documented rules, their store, and
the reads the API serves. Imports nothing of api/."""
