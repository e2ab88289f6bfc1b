"""Prolific (its REST API, through httpx): its adapter, batch steps, operations and fees."""
