package io.sluice.bench.torture;

/**
 * A job the server still stores at the end of a run.
 *
 * @param seq the payload sequence number, or -1 when the job is not this run's
 */
record PresentJob(String id, int seq, String status, int attempts) {}
