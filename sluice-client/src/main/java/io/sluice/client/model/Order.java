package io.sluice.client.model;

/** Listing direction: jobs by id (creation order), error records by attempt. */
public enum Order {
  ASC,
  DESC;

  public String wireName() {
    return this == ASC ? "asc" : "desc";
  }
}
