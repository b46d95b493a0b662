package io.sluice.engine.cron;

import io.sluice.engine.Names;
import java.time.ZoneId;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A named group of cron entries, and the rules of API.md §9.4–§9.6 that span them: which zone
 * each entry runs in, what a PUT keeps, and which due entries fire. Owned by the engine thread.
 *
 * <p>An entry's effective zone is its own zone, else the group's, else the server's; every
 * change that alters it restarts that entry's schedule from "now".
 */
public final class CronGroup {
  /** Receives each fire; answers whether the job was enqueued. */
  @FunctionalInterface
  public interface FireSink {
    boolean fire(JobTemplate template, long occurrenceMs);
  }

  private final String name;
  private final ZoneId serverZone;
  private final PauseState pause;
  /** The group's own zone; null when its entries fall back to the server's. */
  private ZoneId zone;
  private final TreeMap<String, CronEntry> entries = new TreeMap<>(Names.BYTE_ORDER);

  CronGroup(String name, ZoneId serverZone, PauseState pause, ZoneId zone) {
    this.name = name;
    this.serverZone = serverZone;
    this.pause = pause;
    this.zone = zone;
  }

  /** An empty group that some request creates now. */
  public static CronGroup create(String name, boolean paused, ZoneId zone, ZoneId serverZone,
      long nowMs) {
    return new CronGroup(name, serverZone, PauseState.created(paused, nowMs), zone);
  }

  /**
   * Replaces the group whole (PUT): its zone, its pause state when given, and its entries, those
   * absent from {@code spec} being deleted. {@code templates} match {@code spec.entries()}.
   */
  public void replace(GroupSpec spec, List<JobTemplate> templates, long nowMs) {
    ZoneId oldZone = zone;
    zone = spec.zone();
    if (spec.paused() != null) {
      pause.set(spec.paused(), nowMs);
    }
    Map<String, CronEntry> old = new HashMap<>(entries);
    entries.clear();
    for (int i = 0; i < spec.entries().size(); i++) {
      EntrySpec entrySpec = spec.entries().get(i);
      CronEntry existing = old.get(entrySpec.name());
      ZoneId newEntryZone = effective(entrySpec.zone(), zone);
      if (existing == null) {
        entries.put(entrySpec.name(),
            CronEntry.create(entrySpec, templates.get(i), newEntryZone, nowMs));
      } else {
        existing.replace(entrySpec, templates.get(i), effective(existing.zone(), oldZone),
            newEntryZone, nowMs);
        entries.put(entrySpec.name(), existing);
      }
    }
  }

  /** Creates or replaces one entry (POST / PUT of an entry); returns it. */
  public CronEntry install(EntrySpec spec, JobTemplate template, long nowMs) {
    CronEntry existing = entries.get(spec.name());
    ZoneId newEntryZone = effective(spec.zone(), zone);
    if (existing == null) {
      CronEntry created = CronEntry.create(spec, template, newEntryZone, nowMs);
      entries.put(spec.name(), created);
      return created;
    }
    existing.replace(spec, template, effectiveZone(existing), newEntryZone, nowMs);
    return existing;
  }

  /** Applies a merge patch; a zone change restarts the schedules of the entries inheriting it. */
  public void patch(GroupPatch patch, long nowMs) {
    if (patch.paused() != null) {
      pause.set(patch.paused(), nowMs);
    }
    if (!patch.setZone()) {
      return;
    }
    ZoneId oldZone = zone;
    zone = patch.zone();
    for (CronEntry entry : entries.values()) {
      if (entry.zone() == null) {
        entry.rezone(effective(null, oldZone), effective(null, zone), nowMs);
      }
    }
  }

  /**
   * Handles every due entry (API.md §9.6): one that neither it nor the group pauses fires once,
   * for its scheduled occurrence; all of them then move to their first occurrence after now.
   *
   * @return whether any entry was due, i.e. whether the group changed
   */
  public boolean fireDue(long nowMs, FireSink sink) {
    boolean changed = false;
    for (CronEntry entry : entries.values()) {
      if (!entry.dueAt(nowMs)) {
        continue;
      }
      changed = true;
      boolean runs = !pause.paused() && !entry.pause().paused();
      if (runs && sink.fire(entry.template(), entry.nextEnqueueAtMs())) {
        entry.fired(nowMs);
      }
      entry.advance(effectiveZone(entry), nowMs);
    }
    return changed;
  }

  /** The earliest next occurrence of any entry, paused or not, or {@link Long#MAX_VALUE}. */
  public long nextFireMs() {
    long next = Long.MAX_VALUE;
    for (CronEntry entry : entries.values()) {
      if (entry.nextEnqueueAtMs() != CronEntry.NONE) {
        next = Math.min(next, entry.nextEnqueueAtMs());
      }
    }
    return next;
  }

  public ZoneId effectiveZone(CronEntry entry) {
    return effective(entry.zone(), zone);
  }

  private ZoneId effective(ZoneId entryZone, ZoneId groupZone) {
    if (entryZone != null) {
      return entryZone;
    }
    return groupZone != null ? groupZone : serverZone;
  }

  public CronEntry entry(String entryName) {
    return entries.get(entryName);
  }

  public boolean remove(String entryName) {
    return entries.remove(entryName) != null;
  }

  /** Entries in name byte order. */
  public Collection<CronEntry> entries() {
    return Collections.unmodifiableCollection(entries.values());
  }

  /** Adds an entry as stored (recovery). */
  void restore(CronEntry entry) {
    entries.put(entry.name(), entry);
  }

  public String name() {
    return name;
  }

  public PauseState pause() {
    return pause;
  }

  public ZoneId zone() {
    return zone;
  }

  /** The group with its entries in name order. */
  public CronGroupView view() {
    return withEntries(entries.values().stream().map(CronEntry::view).toList());
  }

  /** The group with its entries in the order {@code entryNames} gives. */
  public CronGroupView view(List<String> entryNames) {
    return withEntries(entryNames.stream().map(n -> entries.get(n).view()).toList());
  }

  private CronGroupView withEntries(List<CronEntryView> entryViews) {
    return new CronGroupView(name, pause.paused(), pause.pausedAtMs(), pause.resumedAtMs(), zone,
        entryViews);
  }
}
