"""The webhook domain in one place: event names, recording events, subscriptions, the delivery
read model, signing, and the outbox figures. The worker (daemon/) schedules, claims and sends;
the admin, the API and the CLI call in here."""
