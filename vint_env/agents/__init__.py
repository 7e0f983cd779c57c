"""Agents: random, rule bot, double-dummy oracle, trained policies."""

from .base import Agent, RandomAgent, legal_actions

__all__ = ["Agent", "RandomAgent", "legal_actions"]
