"""Orders: creating, editing and cancelling them, their items and lines, stage moves,
numbering, and the reads behind the API's and the admin's order pages."""
