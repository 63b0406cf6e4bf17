"""A pytest-like run of a billing service's test suite (sample tool for tracetui's sample runs).

Deterministic per argv: the same arguments always print the same bytes, so a re-run can prove it
reproduced what was recorded. One test (a proration rounding bug) fails unless it is deselected.
Usage: billing_suite.py TESTDIR [-q] [--deselect NODEID]
"""

import sys

FAILING = "tests/billing/test_subscriptions.py::test_upgrade_mid_cycle_prorates_to_the_cent"

MODULES = {
    "test_accounts.py": ["create_account", "close_account_with_open_balance",
                         "merge_duplicate_accounts",
                         "account_currency_is_immutable", "billing_contact_required_for_invoicing",
                         "suspend_after_failed_dunning", "reactivate_clears_suspension_flag"],
    "test_currency.py": ["format_amount[EUR-€1.234,50]", "format_amount[USD-$1,234.50]",
                         "format_amount[GBP-£1,234.50]", "format_amount[JPY-¥1,235]",
                         "round_half_even_on_conversion", "conversion_uses_rate_at_invoice_date",
                         "zero_decimal_currencies_have_no_minor_units"],
    "test_discounts.py": ["percent_off_applies_before_tax", "amount_off_never_goes_negative",
                          "coupon_expires_at_end_of_day_utc", "stacked_coupons_apply_in_order",
                          "one_time_coupon_removed_after_first_invoice",
                          "discount_on_prorated_line"],
    "test_dunning.py": ["first_retry_after_three_days", "retry_schedule_respects_weekends",
                        "final_notice_email_rendered", "card_updated_triggers_immediate_retry",
                        "dunning_stops_after_payment"],
    "test_invoices.py": ["draft_invoice_has_no_number", "finalize_assigns_sequential_number",
                         "void_invoice_keeps_number", "invoice_total_matches_line_sum",
                         "pdf_render_contains_tax_id", "credit_note_links_original_invoice",
                         "invoice_due_date_net_30", "late_fee_added_once"],
    "test_ledger.py": ["double_entry_balances", "refund_posts_reversal", "fx_gain_loss_account",
                       "ledger_export_csv_columns", "period_close_rejects_backdated_entries"],
    "test_payments.py": ["capture_authorised_payment", "partial_capture", "idempotency_key_reused",
                         "webhook_marks_invoice_paid", "three_ds_challenge_pending",
                         "declined_card_sets_past_due", "payment_method_detach_on_close"],
    "test_proration.py": ["downgrade_credits_unused_time", "proration_disabled_for_annual_plans",
                          "proration_date_in_customer_timezone", "seat_increase_prorates_daily"],
    "test_refunds.py": ["full_refund_reopens_credit", "partial_refund_amount_validation",
                        "refund_after_period_close_goes_to_next_period", "refund_fee_not_returned"],
    "test_subscriptions.py": ["create_monthly_subscription", "trial_converts_to_paid",
                              "cancel_at_period_end", "pause_collection", "resume_collection",
                              "upgrade_mid_cycle_prorates_to_the_cent", "renewal_on_the_31st",
                              "renewal_across_dst_change", "quantity_change_mid_cycle"],
    "test_tax.py": ["vat_reverse_charge_b2b_eu", "us_sales_tax_by_zip", "tax_exempt_customer",
                    "tax_rounding_per_line_vs_total", "tax_id_validation_checksum"],
    "test_webhooks.py": ["signature_verified", "replayed_event_ignored", "out_of_order_events",
                         "unknown_event_type_logged", "delivery_retry_backoff"],
    "test_usage_metering.py": ["usage_records_summed_per_period", "late_usage_goes_to_next_invoice",
                               "tiered_pricing_boundaries", "volume_pricing_whole_quantity",
                               "metered_line_description", "usage_reset_on_renewal"],
}
# Variants multiply each test the way parametrised fixtures do in a real suite.
VARIANTS = ["sqlite", "postgres", "postgres-tz-berlin"]

WARNINGS = """=============================== warnings summary ===============================
src/billing/clock.py:41
  src/billing/clock.py:41: DeprecationWarning: datetime.datetime.utcnow() is deprecated; use timezone-aware objects
    return datetime.utcnow().replace(tzinfo=None)

tests/billing/test_currency.py::test_format_amount[JPY-¥1,235][sqlite]
  src/billing/money.py:88: UserWarning: rate table for 2026-11-01 missing, falling back to previous day
    warnings.warn(msg)

tests/billing/test_webhooks.py::test_delivery_retry_backoff[postgres]
  .venv/lib/python3.11/site-packages/httpx/_client.py:690: ResourceWarning: unclosed transport
    warnings.warn(msg, ResourceWarning)

-- Docs: https://docs.example.invalid/how-to/capture-warnings.html
"""

FAILURE = """=================================== FAILURES ===================================
_______ test_upgrade_mid_cycle_prorates_to_the_cent[postgres-tz-berlin] ________

plan_factory = <PlanFactory starter=19.00 pro=49.00>
subscription = <Subscription sub_7Q2k4M plan=starter anchor=2026-10-17 tz=Europe/Berlin>
frozen_clock = <FrozenClock 2026-11-01T00:30:00+01:00>

    def test_upgrade_mid_cycle_prorates_to_the_cent(plan_factory, subscription, frozen_clock):
        pro = plan_factory("pro")
        invoice = subscription.change_plan(pro, proration="always_invoice")
        line = invoice.lines.by_kind("proration")
>       assert line.amount == Decimal("33.34")
E       AssertionError: assert Decimal('33.33') == Decimal('33.34')
E        +  where Decimal('33.33') = <InvoiceLine proration pro 2026-11-01..2026-11-17 qty=1>.amount
E        +    where <InvoiceLine ...> = <Lines n=2>.by_kind('proration')

tests/billing/test_subscriptions.py:212: AssertionError
----------------------------- Captured log call ------------------------------
INFO     billing.proration:proration.py:57 days_remaining=16 days_in_period=31 ratio=0.516129
INFO     billing.proration:proration.py:63 raw=15.483870967741935 rounding=ROUND_DOWN
"""


def main(argv: list[str]) -> int:
    deselect = argv[argv.index("--deselect") + 1] if "--deselect" in argv else None
    out: list[str] = []
    nodes = [f"tests/billing/{mod}::test_{name}[{v}]" for mod, names in MODULES.items()
             for name in names for v in VARIANTS]
    chosen = [n for n in nodes if not (deselect and n.startswith(deselect))]
    out.append("=" * 29 + " test session starts " + "=" * 30)
    out.append("platform linux -- Python 3.11, billing-suite runner 1.8.2")
    out.append("rootdir: /srv/billing-service, configfile: pyproject.toml")
    out.append("plugins: freezegun-0.4, xdist-3.6, env-1.1")
    deselected = len(nodes) - len(chosen)
    tail = f" / {deselected} deselected / {len(chosen)} selected" if deselected else ""
    out.append(f"collected {len(nodes)} items{tail}")
    out.append("")
    failed = []
    for i, node in enumerate(chosen, 1):
        bad = node.startswith(FAILING) and node.endswith("[postgres-tz-berlin]")
        pct = i * 100 // len(chosen)
        out.append(f"{node} {'FAILED' if bad else 'PASSED'} [{pct:3d}%]")
        if bad:
            failed.append(node)
    out.append("")
    if failed:
        out.append(FAILURE.rstrip("\n"))
    out.append(WARNINGS.rstrip("\n"))
    if failed:
        out.append("=" * 28 + " short test summary info " + "=" * 27)
    for node in failed:
        out.append(f"FAILED {node} - AssertionError: assert Decimal('33.33') == Decimal('33.34')")
    passed = len(chosen) - len(failed)
    parts = ([f"{len(failed)} failed"] if failed else []) + [f"{passed} passed"]
    parts += [f"{deselected} deselected"] if deselected else []
    parts.append("3 warnings")
    secs = "41.87" if failed else "40.92"
    out.append(f"{'=' * 20} {', '.join(parts)} in {secs}s {'=' * 20}")
    sys.stdout.buffer.write(("\n".join(out) + "\n").encode("utf-8"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
