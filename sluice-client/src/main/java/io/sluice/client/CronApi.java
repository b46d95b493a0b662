package io.sluice.client;

import static io.sluice.client.UrlParts.segment;

import io.sluice.client.model.CronEntry;
import io.sluice.client.model.CronEntrySpec;
import io.sluice.client.model.CronGroup;
import io.sluice.client.model.CronGroupPatch;
import io.sluice.client.model.CronGroupSpec;
import java.util.List;

/** Recurring job templates, in named groups of named entries (API.md §9). */
public final class CronApi {
  private final HttpTransport transport;

  CronApi(HttpTransport transport) {
    this.transport = transport;
  }

  /** Group names, sorted. */
  public List<String> groups() {
    return transport.call("GET", "/crons", null, WireBodies.CronNames.class).crons();
  }

  /** Deletes every group; returns how many there were. */
  public long deleteAll() {
    return transport.call("DELETE", "/crons", null, WireBodies.Deleted.class).deleted();
  }

  public CronGroup get(String group) {
    return transport.call("GET", groupPath(group), null, CronGroup.class);
  }

  /** Replaces the group whole (idempotent; safe to run from every instance at boot). */
  public CronGroup put(String group, CronGroupSpec spec) {
    return transport.call("PUT", groupPath(group), spec, CronGroup.class);
  }

  public CronGroup patch(String group, CronGroupPatch patch) {
    return transport.call("PATCH", groupPath(group), patch, CronGroup.class);
  }

  public void delete(String group) {
    transport.call("DELETE", groupPath(group), null);
  }

  /** Adds an entry (creating the group); {@link ConflictException} if the name is taken. */
  public CronEntry addEntry(String group, CronEntrySpec entry) {
    return transport.call("POST", groupPath(group) + "/entries", entry, CronEntry.class);
  }

  public CronEntry getEntry(String group, String entry) {
    return transport.call("GET", entryPath(group, entry), null, CronEntry.class);
  }

  /** Creates or replaces the entry named {@code entry} (the path name wins over the spec's). */
  public CronEntry putEntry(String group, String entry, CronEntrySpec spec) {
    return transport.call("PUT", entryPath(group, entry), spec, CronEntry.class);
  }

  public CronEntry setEntryPaused(String group, String entry, boolean paused) {
    return transport.call("PATCH", entryPath(group, entry), new WireBodies.Paused(paused),
        CronEntry.class);
  }

  public void deleteEntry(String group, String entry) {
    transport.call("DELETE", entryPath(group, entry), null);
  }

  private static String groupPath(String group) {
    return "/crons/" + segment(group);
  }

  private static String entryPath(String group, String entry) {
    return groupPath(group) + "/entries/" + segment(entry);
  }
}
