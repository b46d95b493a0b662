package io.sluice.engine;

import io.sluice.engine.job.Binding;
import io.sluice.engine.budget.BindingPlan;
import io.sluice.engine.budget.Budget;
import io.sluice.engine.budget.BudgetBook;
import io.sluice.engine.cron.CronEntry;
import io.sluice.engine.cron.CronEntryView;
import io.sluice.engine.cron.CronGroup;
import io.sluice.engine.cron.CronGroupCodec;
import io.sluice.engine.cron.CronGroupView;
import io.sluice.engine.cron.EntrySpec;
import io.sluice.engine.cron.GroupPatch;
import io.sluice.engine.cron.GroupSpec;
import io.sluice.engine.cron.JobTemplate;
import io.sluice.engine.store.Mutation;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cron resource (API.md §9): the {@code /crons} commands, recovery, and when the next entry
 * is due ({@link CronFiring} fires it). Runs on the engine thread like every command; each change
 * writes the whole group.
 *
 * <p>Template bindings are resolved, and {@code create_with} budgets created, when an entry is
 * installed (BUDGETS.md §9); a template then keeps its budgets from being deleted or shrunk below
 * its cost. Every validation failure is a 400 here, budget problems included (§9.2).
 */
public final class CronAdmin {
  private static final Logger LOG = LoggerFactory.getLogger(CronAdmin.class);

  /** Adds an administrative change to the current turn (default commit mode). */
  private final Consumer<Mutation> writes;
  private final BudgetBook budgets;
  private final ZoneId serverZone;
  private final TreeMap<String, CronGroup> groups = new TreeMap<>(Names.BYTE_ORDER);
  /** The earliest next occurrence over all groups; recomputed lazily after changes. */
  private long nextFireMs = Long.MAX_VALUE;
  private boolean nextFireStale;

  public CronAdmin(Consumer<Mutation> writes, BudgetBook budgets, ZoneId serverZone) {
    this.writes = writes;
    this.budgets = budgets;
    this.serverZone = serverZone;
  }

  // ---- groups --------------------------------------------------------------------------------

  /** Every group's stored record, by name in byte order (state descriptions). */
  Map<String, byte[]> records() {
    Map<String, byte[]> records = new TreeMap<>(Names.BYTE_ORDER);
    groups.forEach((name, group) -> records.put(name, CronGroupCodec.encode(group)));
    return records;
  }

  public List<String> listGroupNames() {
    return List.copyOf(groups.keySet());
  }

  /** Deletes every group (also the first step of a reset); returns how many there were. */
  public int deleteAll() {
    int count = groups.size();
    for (String name : groups.keySet()) {
      writes.accept(new Mutation.DeleteCronGroup(name));
    }
    groups.clear();
    nextFireStale = true;
    return count;
  }

  public CronGroupView getGroup(String name) {
    return existingGroup(name).view();
  }

  /** Creates or replaces a group whole; answers its entries in request order. */
  public CronGroupView putGroup(String name, GroupSpec spec, long nowMs) {
    List<JobTemplate> templates = install(spec.entries(), nowMs);
    CronGroup group = groups.get(name);
    if (group == null) {
      boolean paused = spec.paused() != null && spec.paused();
      group = CronGroup.create(name, paused, spec.zone(), serverZone, nowMs);
      groups.put(name, group);
    }
    group.replace(spec, templates, nowMs);
    stored(group);
    return group.view(spec.entries().stream().map(EntrySpec::name).toList());
  }

  public CronGroupView patchGroup(String name, GroupPatch patch, long nowMs) {
    CronGroup group = existingGroup(name);
    if (patch.paused() != null || patch.setZone()) {
      group.patch(patch, nowMs);
      stored(group);
    }
    return group.view();
  }

  public void deleteGroup(String name) {
    existingGroup(name);
    groups.remove(name);
    writes.accept(new Mutation.DeleteCronGroup(name));
    nextFireStale = true;
  }

  // ---- entries -------------------------------------------------------------------------------

  /** POST: creates an entry, and its group if need be; never replaces. */
  public CronEntryView addEntry(String groupName, EntrySpec spec, long nowMs) {
    CronGroup group = groups.get(groupName);
    if (group != null && group.entry(spec.name()) != null) {
      throw new SluiceException.Conflict("cron entry '" + spec.name()
          + "' already exists in group '" + groupName + "'");
    }
    return putEntry(groupName, spec, nowMs);
  }

  public CronEntryView getEntry(String groupName, String entryName) {
    return existingEntry(groupName, entryName).view();
  }

  /** PUT: creates or replaces an entry, and creates its group if need be. */
  public CronEntryView putEntry(String groupName, EntrySpec spec, long nowMs) {
    JobTemplate template = install(List.of(spec), nowMs).get(0);
    CronGroup group = groups.computeIfAbsent(groupName,
        name -> CronGroup.create(name, false, null, serverZone, nowMs));
    CronEntry entry = group.install(spec, template, nowMs);
    stored(group);
    return entry.view();
  }

  public CronEntryView patchEntry(String groupName, String entryName, boolean paused,
      long nowMs) {
    CronEntry entry = existingEntry(groupName, entryName);
    entry.setPaused(paused, nowMs);
    stored(groups.get(groupName));
    return entry.view();
  }

  public void deleteEntry(String groupName, String entryName) {
    existingEntry(groupName, entryName);
    CronGroup group = groups.get(groupName);
    group.remove(entryName);
    stored(group);
  }

  /**
   * Resolves the bindings of every template at once, so budgets that several entries create are
   * planned once and counted once against the cap, then creates those budgets.
   */
  private List<JobTemplate> install(List<EntrySpec> specs, long nowMs) {
    BindingPlan plan = budgets.newPlan();
    List<JobTemplate> templates = new ArrayList<>(specs.size());
    try {
      for (EntrySpec spec : specs) {
        List<Binding> bindings = plan.resolve(spec.job().budgets());
        templates.add(JobTemplate.of(spec.job(), bindings));
      }
    } catch (SluiceException.Unprocessable e) {
      throw new SluiceException.InvalidRequest(e.getMessage());
    }
    for (Budget created : plan.apply(nowMs)) {
      writes.accept(new Mutation.PutBudget(created.view()));
    }
    return templates;
  }

  // ---- budget references ---------------------------------------------------------------------

  /** Refuses deleting a budget that a template binds (BUDGETS.md §8.6, checked before jobs). */
  void checkBudgetUnreferenced(String key) {
    int count = 0;
    String first = null;
    for (CronGroup group : groups.values()) {
      for (CronEntry entry : group.entries()) {
        if (cost(entry, key) > 0) {
          count++;
          first = first == null ? group.name() + "/" + entry.name() : first;
        }
      }
    }
    if (count > 0) {
      throw new SluiceException.Conflict("budget '" + key + "' is referenced by " + count
          + " cron " + (count == 1 ? "entry" : "entries") + ", including '" + first
          + "'. Remove them before deleting it.");
    }
  }

  /** Refuses shrinking a budget below what a template draws (BUDGETS.md §8.9, checked first). */
  void checkBudgetShrink(String key, long capacity) {
    for (CronGroup group : groups.values()) {
      for (CronEntry entry : group.entries()) {
        long cost = cost(entry, key);
        if (cost > capacity) {
          throw new SluiceException.Unprocessable("budget '" + key + "' cannot allocate "
              + capacity + ": cron entry '" + group.name() + "/" + entry.name() + "' draws "
              + cost + " from it. Lower the entry's cost or remove it first.");
        }
      }
    }
  }

  /** The entry's cost on budget {@code key}, 0 when its template does not bind it. */
  private static long cost(CronEntry entry, String key) {
    for (Binding binding : entry.template().budgets()) {
      if (binding.key().equals(key)) {
        return binding.cost();
      }
    }
    return 0;
  }

  // ---- recovery and the next fire -----------------------------------------------------------

  /** Loads a stored group at start-up; call after the budgets are recovered. */
  public void recover(String name, byte[] record) {
    try {
      groups.put(name, CronGroupCodec.decode(name, record, serverZone));
      nextFireStale = true;
    } catch (IllegalArgumentException e) {
      // Only a damaged store, or a zone this runtime's tz database dropped, gets here; the rest
      // of the server must still start. A later PUT of the group overwrites the record.
      LOG.error("cron group '{}' cannot be loaded and will not fire: {}", name, e.getMessage());
    }
  }

  /** Every group, in name byte order, for firing. */
  Collection<CronGroup> groups() {
    return groups.values();
  }

  /** A group's schedule changed outside this class (it fired): the next fire is worked out anew. */
  void scheduleChanged() {
    nextFireStale = true;
  }

  /** The earliest next occurrence of any entry, or {@link Long#MAX_VALUE} if none. */
  public long nextFireMs() {
    if (nextFireStale) {
      long next = Long.MAX_VALUE;
      for (CronGroup group : groups.values()) {
        next = Math.min(next, group.nextFireMs());
      }
      nextFireMs = next;
      nextFireStale = false;
    }
    return nextFireMs;
  }

  // ---- helpers -------------------------------------------------------------------------------

  private void stored(CronGroup group) {
    writes.accept(new Mutation.PutCronGroup(group.name(), CronGroupCodec.encode(group)));
    nextFireStale = true;
  }

  private CronGroup existingGroup(String name) {
    CronGroup group = groups.get(name);
    if (group == null) {
      throw new SluiceException.NotFound("cron group '" + name + "' not found");
    }
    return group;
  }

  private CronEntry existingEntry(String groupName, String entryName) {
    CronGroup group = groups.get(groupName);
    CronEntry entry = group == null ? null : group.entry(entryName);
    if (entry == null) {
      throw new SluiceException.NotFound("cron entry '" + entryName + "' not found in group '"
          + groupName + "'");
    }
    return entry;
  }
}
