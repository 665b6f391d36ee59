"""Read-side queries: every function takes the workspace id first and returns plain rows."""
