"""The staff admin under /admin: server-rendered pages for one workspace at a time."""
