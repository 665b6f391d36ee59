"""Customers in one place: creating and editing them (slugs, price lists, external refs),
their contacts (one primary) and addresses (one default), and the reads behind the API's and
the admin's customer pages. The admin, the API and the CLI call in here."""
