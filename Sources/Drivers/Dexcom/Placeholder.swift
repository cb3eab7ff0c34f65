// Drivers module.
