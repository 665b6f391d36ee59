"""One controller per resource; handlers parse, call models/, and shape a response Struct."""
