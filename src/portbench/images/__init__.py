"""Pinned environments: profiles, their locks, images built from them."""
