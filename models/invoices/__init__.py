"""Invoices: issuing them on dispatch, payments against them, and the reads behind the API's
and the admin's invoice pages."""
