"""jackpot package."""
