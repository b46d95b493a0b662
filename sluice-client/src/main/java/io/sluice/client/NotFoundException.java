package io.sluice.client;

/** HTTP 404: the job, budget, cron group or entry does not exist (or a job is not in flight). */
public class NotFoundException extends SluiceException {
  public NotFoundException(int status, String serverMessage, String request) {
    super(status, serverMessage, request);
  }
}
