"""A campaign's config: the TOML file read, checked against its schema and loaded into ``Config``."""
