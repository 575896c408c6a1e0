// Placeholder until the loopback server lands.
