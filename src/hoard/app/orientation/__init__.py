"""What an agent needs to orient itself: recent changes, a note's neighbourhood, the session
briefing, and the two tools ChatGPT's connectors call."""
