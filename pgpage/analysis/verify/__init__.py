"""Integrity rules for whole forks, vectorised: page headers, checksums, heap line pointers, tuple
headers, transaction ids, HOT chains, TOAST pointers, the visibility map and B-trees.

Pure functions over numpy chunks of pages (``RelationFork.iter_chunks``) plus what the caller knows
(``VerifyContext``: pg_control's xid horizon, pg_class's relfrozenxid, pg_xact); they return
``Finding`` lists and never read files. ``pgpage.passes.verify`` wires them to storage.

One module per rule set:

* ``context``: ``VerifyContext``, what is known about the fork being judged;
* ``pages``: page header sanity and checksums, for every fork of every access method;
* ``xids``: transaction and multixact ids against pg_control's and pg_class's horizons;
* ``heap``: heap line pointers and tuple headers (``verify_heap_chunk`` runs every heap rule);
* ``hot``: HOT chains and update chains within a page;
* ``toast``: the TOAST pointers of tuples with external values;
* ``vm``: the visibility map and PD_ALL_VISIBLE against what the pages hold;
* ``btree``: amcheck's B-tree page rules, beside ``analysis.btree``'s structure checks.

The heap rules follow amcheck's ``verify_heapam`` (``contrib/amcheck/verify_heapam.c``): the same
conditions, in the same order, with the same way of deciding when a tuple is too broken to look at
further (a bad ``t_hoff`` stops the visibility checks, an out-of-range xmin stops the xmax checks).
The VM rules are those of ``pg_check_visible``/``pg_check_frozen`` and of the warnings VACUUM prints
(``vacuumlazy.c``). Page header rules are ``PageIsVerifiedExtended``'s, with the same codes
``pgpage page`` uses for one page.

Offline there is no running server to ask, so two things differ from amcheck:

* Commit status comes from hint bits and pg_xact (``ClogArray``); where pg_xact does not cover an
  xid the status is unknown and the rules that need it are skipped rather than guessed.
* pg_control's next xid is that of the last checkpoint. After a clean shutdown nothing is newer;
  after a crash (or on a running server) newer xids are legitimate until WAL replay, so
  "in the future" and the cross-file rules (VM against heap) are warnings there (``consistent``).

Two rules go beyond verify_heapam: a HOT-updated tuple whose updater committed must be followed, at
its t_ctid on the same page, by a tuple that updater inserted (``heap.hot.xmin_mismatch``,
``heap.hot.broken_chain``, ``heap.hot.link_to_unused``, ``heap.hot.bad_link``), and a HOT chain never
leaves its page (``heap.hot.ctid_off_page``).

Every rule is a numpy expression over a whole chunk; Python loops run only over the tuples that
broke a rule (to word their messages) and over the tuples flagged HEAP_HASEXTERNAL, whose TOAST
pointers are found by walking their columns (``deform_tuple``).
"""
