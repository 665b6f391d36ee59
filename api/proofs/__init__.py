"""The customer's proof page, `/proofs/{token}`: no login; the emailed link is the key."""
