-- schemaseek demo catalog: Meridian Sound Group
-- A fictional music rights and distribution company. Table and column names follow
-- the internal conventions of its back-office systems (Abacus for agreements and
-- earnings, the RS module for statements, the DIST module for deliveries), so the
-- names often differ from the words people use in conversation.
-- Convention: a comment line directly after CREATE TABLE describes the table, and a
-- trailing comment on a column line describes that column.

PRAGMA foreign_keys = ON;

-- ===========================================================================
-- Reference data
-- ===========================================================================

CREATE TABLE currency (
    -- ISO 4217 currencies used for pricing, earnings and payouts.
    currency_code TEXT PRIMARY KEY, -- Three-letter ISO 4217 code such as USD or EUR.
    currency_name TEXT NOT NULL, -- English name of the currency.
    minor_units INTEGER NOT NULL DEFAULT 2 -- Number of decimal places used when rounding amounts.
);

CREATE TABLE geo_territory (
    -- Countries and sales regions in which music can be licensed, sold or streamed.
    territory_code TEXT PRIMARY KEY, -- ISO 3166 alpha-2 country code or a regional code such as WW for worldwide.
    territory_name TEXT NOT NULL, -- Display name of the country or region.
    region TEXT, -- Reporting region: North America, Europe, Asia Pacific, Latin America or Worldwide.
    default_currency_code TEXT REFERENCES currency(currency_code), -- Currency normally used for local sales.
    withholding_tax_pct REAL NOT NULL DEFAULT 0 -- Tax withheld at source on income earned in this territory.
);

CREATE TABLE fx_rate (
    -- Daily foreign exchange rates used to convert local earnings into the statement currency.
    fx_rate_id INTEGER PRIMARY KEY, -- Surrogate key of the rate.
    from_currency_code TEXT NOT NULL REFERENCES currency(currency_code), -- Currency being converted.
    to_currency_code TEXT NOT NULL REFERENCES currency(currency_code), -- Currency converted into.
    rate_date TEXT NOT NULL, -- Business date the rate applies to.
    rate REAL NOT NULL, -- Units of the target currency per one unit of the source currency.
    source TEXT NOT NULL DEFAULT 'ECB' -- Provider of the rate feed.
);

CREATE TABLE employee (
    -- Staff accounts of the back-office applications: royalty analysts, label managers, delivery operators.
    employee_id INTEGER PRIMARY KEY, -- Surrogate key of the staff member.
    email TEXT NOT NULL UNIQUE, -- Corporate email address used to sign in.
    full_name TEXT NOT NULL, -- Name shown in approvals and audit trails.
    department TEXT NOT NULL, -- Team: royalties, label services, distribution, finance or legal.
    manager_id INTEGER REFERENCES employee(employee_id), -- Line manager of this staff member.
    is_active INTEGER NOT NULL DEFAULT 1 -- 1 while the account may sign in.
);

-- ===========================================================================
-- Labels and artists
-- ===========================================================================

CREATE TABLE record_label (
    -- Record labels owned, distributed or licensed by the company, including third-party licensors.
    label_id INTEGER PRIMARY KEY, -- Surrogate key of the label.
    label_name TEXT NOT NULL, -- Trading name printed on releases.
    parent_label_id INTEGER REFERENCES record_label(label_id), -- Group company the label belongs to.
    ownership TEXT NOT NULL, -- owned, joint_venture, distributed or licensor.
    home_territory_code TEXT REFERENCES geo_territory(territory_code), -- Country where the label is based.
    label_code TEXT -- Industry LC number printed on physical products.
);

CREATE TABLE label_imprint (
    -- Imprints: sub-labels and brand names under which a label issues releases.
    imprint_id INTEGER PRIMARY KEY, -- Surrogate key of the imprint.
    label_id INTEGER NOT NULL REFERENCES record_label(label_id), -- Label that owns the imprint.
    imprint_name TEXT NOT NULL, -- Brand name shown on the release.
    genre_focus TEXT, -- Main genre the imprint is known for.
    launched_on TEXT -- Date the imprint started releasing music.
);

CREATE TABLE artist_profile (
    -- Performing artists and bands signed to or distributed by the company.
    artist_id INTEGER PRIMARY KEY, -- Surrogate key of the artist.
    display_name TEXT NOT NULL, -- Name the artist performs under.
    legal_name TEXT, -- Legal name of the person or the band entity.
    artist_kind TEXT NOT NULL DEFAULT 'solo', -- solo, group, orchestra or project.
    home_territory_code TEXT REFERENCES geo_territory(territory_code), -- Country the artist is based in.
    signed_label_id INTEGER REFERENCES record_label(label_id), -- Label that currently represents the artist.
    a_and_r_owner_id INTEGER REFERENCES employee(employee_id) -- Staff member responsible for the artist relationship.
);

CREATE TABLE artist_alias (
    -- Alternative names and spellings of an artist, used to match partner reports.
    alias_id INTEGER PRIMARY KEY, -- Surrogate key of the alias.
    artist_id INTEGER NOT NULL REFERENCES artist_profile(artist_id), -- Artist the alias belongs to.
    alias_name TEXT NOT NULL, -- The alternative name or spelling.
    alias_kind TEXT NOT NULL -- former_name, transliteration, misspelling or featured_credit.
);

-- ===========================================================================
-- Catalog: releases, recordings and compositions
-- ===========================================================================

CREATE TABLE prd_master (
    -- Product master: every commercial release (album, single, EP or compilation) identified by its UPC.
    product_id INTEGER PRIMARY KEY, -- Surrogate key of the product.
    upc TEXT NOT NULL UNIQUE, -- Universal Product Code (barcode) of the release.
    title TEXT NOT NULL, -- Release title.
    product_format TEXT NOT NULL, -- album, single, ep or compilation.
    primary_artist_id INTEGER REFERENCES artist_profile(artist_id), -- Main artist credited on the cover.
    label_id INTEGER NOT NULL REFERENCES record_label(label_id), -- Label issuing the release.
    imprint_id INTEGER REFERENCES label_imprint(imprint_id), -- Imprint shown on the release if any.
    release_date TEXT, -- Street date when the release becomes available.
    p_line TEXT, -- Phonographic copyright notice.
    catalog_number TEXT, -- Internal catalogue number used by the label.
    status TEXT NOT NULL DEFAULT 'draft' -- draft, scheduled, live or taken_down.
);

CREATE TABLE sound_recording (
    -- Sound recordings (tracks) identified by ISRC that can appear on one or more releases.
    recording_id INTEGER PRIMARY KEY, -- Surrogate key of the recording.
    isrc TEXT NOT NULL UNIQUE, -- International Standard Recording Code.
    title TEXT NOT NULL, -- Track title.
    version_title TEXT, -- Version such as Radio Edit or Remastered.
    main_artist_id INTEGER REFERENCES artist_profile(artist_id), -- Main performing artist.
    duration_seconds INTEGER, -- Running time in seconds.
    explicit_content INTEGER NOT NULL DEFAULT 0, -- 1 when the track carries a parental advisory.
    recorded_in_territory_code TEXT REFERENCES geo_territory(territory_code) -- Country of recording.
);

CREATE TABLE prd_track (
    -- Track listing: which recordings appear on which release and in which position.
    product_id INTEGER NOT NULL, -- Release the track belongs to.
    recording_id INTEGER NOT NULL, -- Recording placed on the release.
    disc_number INTEGER NOT NULL DEFAULT 1, -- Disc or side number.
    track_number INTEGER NOT NULL, -- Position on the disc.
    is_bonus INTEGER NOT NULL DEFAULT 0, -- 1 for bonus or hidden tracks.
    PRIMARY KEY (product_id, disc_number, track_number),
    FOREIGN KEY (product_id) REFERENCES prd_master(product_id),
    FOREIGN KEY (recording_id) REFERENCES sound_recording(recording_id)
);

CREATE TABLE contributor (
    -- People credited on recordings or works: songwriters, composers, producers, session musicians.
    contributor_id INTEGER PRIMARY KEY, -- Surrogate key of the contributor.
    full_name TEXT NOT NULL, -- Name as credited.
    ipi_number TEXT, -- Interested Party Information number assigned by collecting societies.
    pro_affiliation TEXT, -- Performing rights organisation the writer belongs to.
    artist_id INTEGER REFERENCES artist_profile(artist_id) -- Artist profile when the contributor is also a performer.
);

CREATE TABLE recording_credit (
    -- Credits on a sound recording and the role each contributor played.
    credit_id INTEGER PRIMARY KEY, -- Surrogate key of the credit.
    recording_id INTEGER NOT NULL REFERENCES sound_recording(recording_id), -- Credited recording.
    contributor_id INTEGER NOT NULL REFERENCES contributor(contributor_id), -- Credited person.
    credit_role TEXT NOT NULL -- producer, mixer, featured_artist, performer or engineer.
);

CREATE TABLE music_publisher (
    -- Music publishers that administer songwriter copyrights.
    publisher_id INTEGER PRIMARY KEY, -- Surrogate key of the publisher.
    publisher_name TEXT NOT NULL, -- Company name of the publisher.
    ipi_number TEXT, -- Publisher IPI number.
    is_affiliate INTEGER NOT NULL DEFAULT 0, -- 1 when the publisher is part of the company group.
    territory_code TEXT REFERENCES geo_territory(territory_code) -- Country of registration.
);

CREATE TABLE musical_work (
    -- Musical works (compositions and songs) identified by ISWC, separate from any recording of them.
    work_id INTEGER PRIMARY KEY, -- Surrogate key of the work.
    iswc TEXT UNIQUE, -- International Standard Musical Work Code.
    title TEXT NOT NULL, -- Song title as registered.
    registered_on TEXT, -- Date the work was registered with collecting societies.
    lyrics_language TEXT -- ISO 639 language of the lyrics.
);

CREATE TABLE work_share (
    -- Ownership splits of a musical work between writers and publishers.
    share_id INTEGER PRIMARY KEY, -- Surrogate key of the share.
    work_id INTEGER NOT NULL REFERENCES musical_work(work_id), -- Work being split.
    contributor_id INTEGER REFERENCES contributor(contributor_id), -- Writer holding the share.
    publisher_id INTEGER REFERENCES music_publisher(publisher_id), -- Publisher holding or administering the share.
    share_pct REAL NOT NULL, -- Percentage of the work owned.
    right_type TEXT NOT NULL -- performance, mechanical or sync.
);

CREATE TABLE recording_work (
    -- Links a sound recording to the musical work it embodies.
    recording_id INTEGER NOT NULL REFERENCES sound_recording(recording_id), -- Recording of the work.
    work_id INTEGER NOT NULL REFERENCES musical_work(work_id), -- Work performed on the recording.
    PRIMARY KEY (recording_id, work_id)
);

CREATE TABLE rights_window (
    -- Territorial rights: where and when a release may be sold or streamed.
    window_id INTEGER PRIMARY KEY, -- Surrogate key of the window.
    product_id INTEGER NOT NULL REFERENCES prd_master(product_id), -- Release the window applies to.
    territory_code TEXT NOT NULL REFERENCES geo_territory(territory_code), -- Territory covered.
    starts_on TEXT NOT NULL, -- First day the release may be offered.
    ends_on TEXT, -- Last day of availability or NULL when open-ended.
    is_excluded INTEGER NOT NULL DEFAULT 0 -- 1 when the territory is explicitly blocked.
);

-- ===========================================================================
-- Abacus: agreements, terms and payouts
-- ===========================================================================

CREATE TABLE abacus_contract (
    -- Agreements between the company and artists or licensors, as kept in the Abacus system.
    contract_id INTEGER PRIMARY KEY, -- Surrogate key of the contract.
    contract_ref TEXT NOT NULL UNIQUE, -- Human readable reference such as ABC-2021-0042.
    label_id INTEGER NOT NULL REFERENCES record_label(label_id), -- Label that signed the contract.
    contract_type TEXT NOT NULL, -- artist, license_in, distribution, publishing or producer.
    title TEXT NOT NULL, -- Short description used by the business affairs team.
    effective_from TEXT NOT NULL, -- Date the agreement starts.
    effective_to TEXT, -- Date the agreement ends or NULL when evergreen.
    base_currency_code TEXT NOT NULL REFERENCES currency(currency_code), -- Currency in which balances are kept.
    owner_employee_id INTEGER REFERENCES employee(employee_id), -- Business affairs owner.
    status TEXT NOT NULL -- Lifecycle state: draft, active, expired, terminated.
);

CREATE TABLE abacus_contract_party (
    -- Parties bound by an Abacus contract and the role each one plays.
    party_id INTEGER PRIMARY KEY, -- Surrogate key of the party row.
    contract_id INTEGER NOT NULL REFERENCES abacus_contract(contract_id), -- Contract the party signed.
    party_name TEXT NOT NULL, -- Name of the signing person or company.
    party_role TEXT NOT NULL, -- artist, licensor, producer, publisher or company.
    artist_id INTEGER REFERENCES artist_profile(artist_id), -- Artist profile when the party is a performer.
    label_id INTEGER REFERENCES record_label(label_id), -- Label when the party is a licensor label.
    payee_share_pct REAL -- Portion of contract earnings paid to this party.
);

CREATE TABLE contract_product (
    -- Scope of an agreement: the releases it covers.
    contract_id INTEGER NOT NULL REFERENCES abacus_contract(contract_id), -- Covering contract.
    product_id INTEGER NOT NULL REFERENCES prd_master(product_id), -- Covered release.
    PRIMARY KEY (contract_id, product_id)
);

CREATE TABLE payment_term (
    -- Payment terms of a contract: how often and how earnings are settled.
    term_id INTEGER PRIMARY KEY, -- Surrogate key of the term.
    contract_id INTEGER NOT NULL REFERENCES abacus_contract(contract_id), -- Contract the term belongs to.
    frequency TEXT NOT NULL, -- monthly, quarterly or semiannual.
    days_after_period INTEGER NOT NULL DEFAULT 90, -- Days after period end when payment is due.
    minimum_payout REAL NOT NULL DEFAULT 0, -- Balance below which payment is carried forward.
    payout_currency_code TEXT NOT NULL REFERENCES currency(currency_code), -- Currency the payee is paid in.
    reserve_pct REAL NOT NULL DEFAULT 0 -- Share of earnings held back against returns.
);

CREATE TABLE royalty_rate (
    -- Royalty rates agreed in a contract per income type and territory.
    rate_id INTEGER PRIMARY KEY, -- Surrogate key of the rate.
    contract_id INTEGER NOT NULL REFERENCES abacus_contract(contract_id), -- Contract defining the rate.
    income_type TEXT NOT NULL, -- streaming, download, physical, sync or neighbouring.
    territory_code TEXT REFERENCES geo_territory(territory_code), -- Territory the rate applies to or NULL for all.
    rate_pct REAL NOT NULL, -- Percentage of net receipts due to the payee.
    escalation_threshold INTEGER -- Units after which an escalated rate applies.
);

CREATE TABLE payment_run (
    -- Payout batches in which finance pays out earnings to rights holders.
    run_id INTEGER PRIMARY KEY, -- Surrogate key of the batch.
    period_start TEXT NOT NULL, -- First day of the earnings period settled.
    period_end TEXT NOT NULL, -- Last day of the earnings period settled.
    executed_on TEXT, -- Date the bank transfers were released.
    approved_by_id INTEGER REFERENCES employee(employee_id), -- Finance approver.
    status TEXT NOT NULL -- planned, approved, executed or cancelled.
);

CREATE TABLE royalty_payment (
    -- Individual royalty payments made to a contract party.
    payment_id INTEGER PRIMARY KEY, -- Surrogate key of the payment.
    contract_id INTEGER NOT NULL REFERENCES abacus_contract(contract_id), -- Contract that generated the payment.
    party_id INTEGER NOT NULL REFERENCES abacus_contract_party(party_id), -- Party receiving the money.
    run_id INTEGER REFERENCES payment_run(run_id), -- Payout batch that included the payment.
    amount REAL NOT NULL, -- Amount paid after deductions.
    currency_code TEXT NOT NULL REFERENCES currency(currency_code), -- Currency of the payment.
    paid_on TEXT, -- Date the money left the company account.
    payment_method TEXT NOT NULL DEFAULT 'wire' -- wire, ach or check.
);

CREATE TABLE rs_statement (
    -- Earnings statements produced by the RS module for a contract and accounting period.
    statement_id INTEGER PRIMARY KEY, -- Surrogate key of the statement.
    contract_id INTEGER NOT NULL REFERENCES abacus_contract(contract_id), -- Contract the statement accounts for.
    period_start TEXT NOT NULL, -- First day of the accounting period.
    period_end TEXT NOT NULL, -- Last day of the accounting period.
    opening_balance REAL NOT NULL DEFAULT 0, -- Balance carried in from the previous period.
    earnings_total REAL NOT NULL DEFAULT 0, -- Sum of earnings in the period.
    closing_balance REAL NOT NULL DEFAULT 0, -- Balance after earnings, recoupment and payments.
    currency_code TEXT NOT NULL REFERENCES currency(currency_code), -- Statement currency.
    payment_id INTEGER REFERENCES royalty_payment(payment_id), -- Payment that settled this statement.
    issued_on TEXT -- Date the statement was sent to the payee.
);

CREATE TABLE rs_statement_line (
    -- Detail lines of an earnings statement, one per release, income type and territory.
    line_id INTEGER PRIMARY KEY, -- Surrogate key of the line.
    statement_id INTEGER NOT NULL REFERENCES rs_statement(statement_id), -- Statement the line belongs to.
    product_id INTEGER REFERENCES prd_master(product_id), -- Release that earned the income.
    recording_id INTEGER REFERENCES sound_recording(recording_id), -- Track that earned the income.
    territory_code TEXT REFERENCES geo_territory(territory_code), -- Territory of consumption.
    income_type TEXT NOT NULL, -- streaming, download, physical, sync or neighbouring.
    units INTEGER NOT NULL DEFAULT 0, -- Streams or units sold.
    gross_receipts REAL NOT NULL DEFAULT 0, -- Money received from the partner in statement currency.
    rate_id INTEGER REFERENCES royalty_rate(rate_id), -- Rate applied to the receipts.
    earned_amount REAL NOT NULL DEFAULT 0 -- Amount credited to the payee.
);

CREATE TABLE advance (
    -- Advances paid up front to artists or licensors and later recouped from their earnings.
    advance_id INTEGER PRIMARY KEY, -- Surrogate key of the advance.
    contract_id INTEGER NOT NULL REFERENCES abacus_contract(contract_id), -- Contract under which the advance was paid.
    amount REAL NOT NULL, -- Amount advanced.
    currency_code TEXT NOT NULL REFERENCES currency(currency_code), -- Currency of the advance.
    paid_on TEXT NOT NULL, -- Date the advance was paid.
    is_recoupable INTEGER NOT NULL DEFAULT 1 -- 1 when the advance is offset against future earnings.
);

CREATE TABLE recoupment (
    -- Amounts withheld from earnings to pay back an advance.
    recoupment_id INTEGER PRIMARY KEY, -- Surrogate key of the recoupment entry.
    advance_id INTEGER NOT NULL REFERENCES advance(advance_id), -- Advance being paid back.
    statement_id INTEGER NOT NULL REFERENCES rs_statement(statement_id), -- Statement in which earnings were withheld.
    amount REAL NOT NULL, -- Amount recouped in this period.
    remaining_balance REAL NOT NULL -- Unrecouped balance after this entry.
);

-- ===========================================================================
-- DIST: deliveries to partners and what partners report back
-- ===========================================================================

CREATE TABLE dsp_partner (
    -- Digital service providers and stores that receive releases and report usage: Spotify, Apple Music, YouTube.
    partner_id INTEGER PRIMARY KEY, -- Surrogate key of the partner.
    partner_name TEXT NOT NULL, -- Commercial name of the service.
    partner_kind TEXT NOT NULL, -- streaming, download_store, video, social or physical_distributor.
    ddex_party_id TEXT, -- DDEX party identifier used in delivery messages.
    reporting_currency_code TEXT REFERENCES currency(currency_code), -- Currency of the partner usage reports.
    is_active INTEGER NOT NULL DEFAULT 1 -- 1 while the company delivers to this partner.
);

CREATE TABLE delivery_type (
    -- Kinds of delivery sent to partners: new release, metadata update, takedown, and the channel used.
    delivery_type_id INTEGER PRIMARY KEY, -- Surrogate key of the delivery kind.
    type_code TEXT NOT NULL UNIQUE, -- Short code such as NEW_RELEASE or TAKEDOWN.
    description TEXT NOT NULL, -- What the delivery does for the partner.
    channel TEXT NOT NULL, -- ddex_sftp, api, portal_upload or physical_shipment.
    requires_audio INTEGER NOT NULL DEFAULT 1 -- 1 when audio files travel with the delivery.
);

CREATE TABLE dist_delivery (
    -- Deliveries: sending a release and its assets to a partner store or streaming service.
    delivery_id INTEGER PRIMARY KEY, -- Surrogate key of the delivery.
    product_id INTEGER NOT NULL REFERENCES prd_master(product_id), -- Release being delivered.
    partner_id INTEGER NOT NULL REFERENCES dsp_partner(partner_id), -- Partner receiving the release.
    delivery_type_id INTEGER NOT NULL REFERENCES delivery_type(delivery_type_id), -- Kind and channel of the delivery.
    requested_by_id INTEGER REFERENCES employee(employee_id), -- Operator who triggered the delivery.
    requested_at TEXT NOT NULL, -- Timestamp the delivery was queued.
    ddex_message_id TEXT, -- Identifier of the DDEX message sent.
    current_status TEXT NOT NULL -- queued, sent, acknowledged, live, rejected or failed.
);

CREATE TABLE delivery_status_event (
    -- Status history of a delivery as reported by the pipeline and the partner.
    event_id INTEGER PRIMARY KEY, -- Surrogate key of the event.
    delivery_id INTEGER NOT NULL REFERENCES dist_delivery(delivery_id), -- Delivery the event belongs to.
    status TEXT NOT NULL, -- queued, sent, acknowledged, live, rejected or failed.
    occurred_at TEXT NOT NULL, -- Timestamp of the status change.
    message TEXT -- Partner acknowledgement text or error detail.
);

CREATE TABLE usage_report (
    -- Usage reports received from partners: streams, downloads and revenue for a reporting period.
    report_id INTEGER PRIMARY KEY, -- Surrogate key of the report.
    partner_id INTEGER NOT NULL REFERENCES dsp_partner(partner_id), -- Partner that sent the report.
    period_start TEXT NOT NULL, -- First day covered by the report.
    period_end TEXT NOT NULL, -- Last day covered by the report.
    received_on TEXT NOT NULL, -- Date the file was ingested.
    currency_code TEXT NOT NULL REFERENCES currency(currency_code), -- Currency of reported revenue.
    file_name TEXT -- Original file name of the partner report.
);

CREATE TABLE usage_report_line (
    -- Detail of a usage report: consumption of one track in one territory.
    report_line_id INTEGER PRIMARY KEY, -- Surrogate key of the line.
    report_id INTEGER NOT NULL REFERENCES usage_report(report_id), -- Report the line belongs to.
    recording_id INTEGER REFERENCES sound_recording(recording_id), -- Matched recording or NULL when unmatched.
    product_id INTEGER REFERENCES prd_master(product_id), -- Matched release.
    territory_code TEXT NOT NULL REFERENCES geo_territory(territory_code), -- Country of consumption.
    usage_type TEXT NOT NULL, -- stream_premium, stream_ad_supported, download or video_view.
    quantity INTEGER NOT NULL, -- Number of plays or units.
    revenue REAL NOT NULL -- Net revenue reported by the partner.
);

CREATE TABLE sales_transaction (
    -- Individual sales of physical and download products through stores and direct to fan.
    transaction_id INTEGER PRIMARY KEY, -- Surrogate key of the sale.
    product_id INTEGER NOT NULL REFERENCES prd_master(product_id), -- Release sold.
    partner_id INTEGER REFERENCES dsp_partner(partner_id), -- Store that made the sale or NULL for direct sales.
    territory_code TEXT NOT NULL REFERENCES geo_territory(territory_code), -- Country of sale.
    sold_on TEXT NOT NULL, -- Date of the sale.
    units INTEGER NOT NULL, -- Units sold with returns as negative numbers.
    unit_price REAL NOT NULL, -- Price per unit in local currency.
    currency_code TEXT NOT NULL REFERENCES currency(currency_code) -- Local currency of the sale.
);

CREATE TABLE invoice (
    -- Invoices raised to partners and licensees, or received from licensors.
    invoice_id INTEGER PRIMARY KEY, -- Surrogate key of the invoice.
    invoice_number TEXT NOT NULL UNIQUE, -- Number printed on the invoice.
    direction TEXT NOT NULL, -- receivable or payable.
    partner_id INTEGER REFERENCES dsp_partner(partner_id), -- Partner invoiced when receivable.
    contract_id INTEGER REFERENCES abacus_contract(contract_id), -- Contract the invoice relates to.
    amount REAL NOT NULL, -- Invoice total including tax.
    currency_code TEXT NOT NULL REFERENCES currency(currency_code), -- Invoice currency.
    issued_on TEXT NOT NULL, -- Invoice date.
    due_on TEXT, -- Payment due date.
    paid_on TEXT -- Date settled or NULL while open.
);

CREATE TABLE audit_log (
    -- Change history across the back-office systems: who changed which record and when.
    audit_id INTEGER PRIMARY KEY, -- Surrogate key of the log entry.
    employee_id INTEGER REFERENCES employee(employee_id), -- Staff member who made the change.
    table_name TEXT NOT NULL, -- Table that was changed.
    record_key TEXT NOT NULL, -- Primary key of the changed row.
    action TEXT NOT NULL, -- insert, update or delete.
    changed_at TEXT NOT NULL, -- Timestamp of the change.
    detail TEXT -- JSON document with before and after values.
);

-- ===========================================================================
-- Sample rows
-- ===========================================================================

INSERT INTO currency (currency_code, currency_name, minor_units) VALUES
    ('USD', 'US Dollar', 2),
    ('EUR', 'Euro', 2),
    ('GBP', 'Pound Sterling', 2),
    ('JPY', 'Japanese Yen', 0),
    ('SEK', 'Swedish Krona', 2);

INSERT INTO geo_territory (territory_code, territory_name, region, default_currency_code, withholding_tax_pct) VALUES
    ('WW', 'Worldwide', 'Worldwide', 'USD', 0),
    ('US', 'United States', 'North America', 'USD', 0),
    ('GB', 'United Kingdom', 'Europe', 'GBP', 0),
    ('DE', 'Germany', 'Europe', 'EUR', 15.825),
    ('SE', 'Sweden', 'Europe', 'SEK', 0),
    ('JP', 'Japan', 'Asia Pacific', 'JPY', 20.42);

INSERT INTO fx_rate (fx_rate_id, from_currency_code, to_currency_code, rate_date, rate, source) VALUES
    (1, 'EUR', 'USD', '2024-03-29', 1.0811, 'ECB'),
    (2, 'GBP', 'USD', '2024-03-29', 1.2623, 'ECB'),
    (3, 'SEK', 'USD', '2024-03-29', 0.0936, 'ECB');

INSERT INTO employee (employee_id, email, full_name, department, manager_id, is_active) VALUES
    (1, 'dana.okafor@meridian.example', 'Dana Okafor', 'finance', NULL, 1),
    (2, 'lukas.brandt@meridian.example', 'Lukas Brandt', 'royalties', 1, 1),
    (3, 'mei.tanaka@meridian.example', 'Mei Tanaka', 'distribution', 1, 1),
    (4, 'sofia.reyes@meridian.example', 'Sofia Reyes', 'label services', 1, 1);

INSERT INTO record_label (label_id, label_name, parent_label_id, ownership, home_territory_code, label_code) VALUES
    (1, 'Meridian Sound Group', NULL, 'owned', 'US', 'LC 40112'),
    (2, 'Harbor Line Records', 1, 'owned', 'GB', 'LC 40113'),
    (3, 'Northgate Music', 1, 'joint_venture', 'SE', 'LC 40114'),
    (4, 'Sony Music Entertainment', NULL, 'licensor', 'US', NULL);

INSERT INTO label_imprint (imprint_id, label_id, imprint_name, genre_focus, launched_on) VALUES
    (1, 2, 'Low Tide', 'indie rock', '2016-05-01'),
    (2, 3, 'Glasshouse', 'electronic', '2019-09-15');

INSERT INTO artist_profile (artist_id, display_name, legal_name, artist_kind, home_territory_code, signed_label_id, a_and_r_owner_id) VALUES
    (1, 'The Paper Lanterns', 'Paper Lanterns LLP', 'group', 'GB', 2, 4),
    (2, 'Ines Vale', 'Ines Valentina Moreau', 'solo', 'DE', 3, 4),
    (3, 'Kōji Arata', 'Koji Arata', 'solo', 'JP', 4, NULL);

INSERT INTO artist_alias (alias_id, artist_id, alias_name, alias_kind) VALUES
    (1, 1, 'Paper Lanterns', 'misspelling'),
    (2, 3, 'Koji Arata', 'transliteration');

INSERT INTO prd_master (product_id, upc, title, product_format, primary_artist_id, label_id, imprint_id, release_date, p_line, catalog_number, status) VALUES
    (1, '0194398765432', 'Slow Weather', 'album', 1, 2, 1, '2023-10-06', '2023 Harbor Line Records', 'HLR-031', 'live'),
    (2, '0194398765449', 'Northern Lights (Radio Edit)', 'single', 2, 3, 2, '2024-02-16', '2024 Northgate Music', 'NGM-S-007', 'live'),
    (3, '0194398765456', 'Tokyo Rain EP', 'ep', 3, 4, NULL, '2024-05-10', '2024 Sony Music Entertainment', 'SME-LIC-118', 'scheduled');

INSERT INTO sound_recording (recording_id, isrc, title, version_title, main_artist_id, duration_seconds, explicit_content, recorded_in_territory_code) VALUES
    (1, 'GBHLR2300101', 'Slow Weather', NULL, 1, 241, 0, 'GB'),
    (2, 'GBHLR2300102', 'Tin Roof', NULL, 1, 198, 0, 'GB'),
    (3, 'SENGM2400007', 'Northern Lights', 'Radio Edit', 2, 187, 0, 'SE'),
    (4, 'JPSME2400118', 'Tokyo Rain', NULL, 3, 222, 0, 'JP');

INSERT INTO prd_track (product_id, recording_id, disc_number, track_number, is_bonus) VALUES
    (1, 1, 1, 1, 0),
    (1, 2, 1, 2, 0),
    (2, 3, 1, 1, 0),
    (3, 4, 1, 1, 0);

INSERT INTO abacus_contract (contract_id, contract_ref, label_id, contract_type, title, effective_from, effective_to, base_currency_code, owner_employee_id, status) VALUES
    (1001, 'ABC-2021-0042', 2, 'artist', 'The Paper Lanterns recording agreement', '2021-01-01', '2026-12-31', 'GBP', 2, 'active'),
    (1002, 'ABC-2023-0117', 3, 'artist', 'Ines Vale single deal', '2023-06-01', NULL, 'EUR', 2, 'active'),
    (1003, 'ABC-2024-0009', 1, 'license_in', 'Sony Music catalogue license for Japan repertoire', '2024-01-01', '2028-12-31', 'USD', 2, 'active');

INSERT INTO abacus_contract_party (party_id, contract_id, party_name, party_role, artist_id, label_id, payee_share_pct) VALUES
    (1, 1001, 'Paper Lanterns LLP', 'artist', 1, NULL, 100),
    (2, 1002, 'Ines Valentina Moreau', 'artist', 2, NULL, 100),
    (3, 1003, 'Sony Music Entertainment', 'licensor', NULL, 4, 100);

INSERT INTO contract_product (contract_id, product_id) VALUES
    (1001, 1),
    (1002, 2),
    (1003, 3);

INSERT INTO payment_term (term_id, contract_id, frequency, days_after_period, minimum_payout, payout_currency_code, reserve_pct) VALUES
    (1, 1001, 'semiannual', 90, 100, 'GBP', 10),
    (2, 1002, 'quarterly', 60, 50, 'EUR', 0),
    (3, 1003, 'quarterly', 45, 0, 'USD', 0);

INSERT INTO royalty_rate (rate_id, contract_id, income_type, territory_code, rate_pct, escalation_threshold) VALUES
    (1, 1001, 'streaming', NULL, 25, 5000000),
    (2, 1001, 'physical', NULL, 18, NULL),
    (3, 1002, 'streaming', NULL, 30, NULL),
    (4, 1003, 'streaming', 'JP', 65, NULL);

INSERT INTO payment_run (run_id, period_start, period_end, executed_on, approved_by_id, status) VALUES
    (1, '2023-07-01', '2023-12-31', '2024-03-28', 1, 'executed'),
    (2, '2024-01-01', '2024-03-31', NULL, NULL, 'planned');

INSERT INTO royalty_payment (payment_id, contract_id, party_id, run_id, amount, currency_code, paid_on, payment_method) VALUES
    (1, 1001, 1, 1, 18250.40, 'GBP', '2024-03-28', 'wire'),
    (2, 1003, 3, 1, 64210.00, 'USD', '2024-03-28', 'wire');

INSERT INTO rs_statement (statement_id, contract_id, period_start, period_end, opening_balance, earnings_total, closing_balance, currency_code, payment_id, issued_on) VALUES
    (1, 1001, '2023-07-01', '2023-12-31', -5000, 23250.40, 0, 'GBP', 1, '2024-03-15'),
    (2, 1003, '2023-07-01', '2023-12-31', 0, 64210.00, 0, 'USD', 2, '2024-03-15');

INSERT INTO advance (advance_id, contract_id, amount, currency_code, paid_on, is_recoupable) VALUES
    (1, 1001, 40000, 'GBP', '2021-01-15', 1);

INSERT INTO recoupment (recoupment_id, advance_id, statement_id, amount, remaining_balance) VALUES
    (1, 1, 1, 5000, 0);

INSERT INTO dsp_partner (partner_id, partner_name, partner_kind, ddex_party_id, reporting_currency_code, is_active) VALUES
    (1, 'Spotify', 'streaming', 'PADPIDA2011021601U', 'EUR', 1),
    (2, 'Apple Music', 'streaming', 'PADPIDA2005080901Z', 'USD', 1),
    (3, 'YouTube', 'video', 'PADPIDA2013020802I', 'USD', 1);

INSERT INTO delivery_type (delivery_type_id, type_code, description, channel, requires_audio) VALUES
    (1, 'NEW_RELEASE', 'First delivery of a release with audio and artwork', 'ddex_sftp', 1),
    (2, 'METADATA_UPDATE', 'Corrected titles, credits or prices without audio', 'ddex_sftp', 0),
    (3, 'TAKEDOWN', 'Withdraw the release from the partner catalogue', 'api', 0);

INSERT INTO dist_delivery (delivery_id, product_id, partner_id, delivery_type_id, requested_by_id, requested_at, ddex_message_id, current_status) VALUES
    (1, 1, 1, 1, 3, '2023-09-20T10:15:00Z', 'MSG-2023-000981', 'live'),
    (2, 2, 1, 1, 3, '2024-02-01T08:00:00Z', 'MSG-2024-000144', 'acknowledged'),
    (3, 2, 2, 1, 3, '2024-02-01T08:00:00Z', 'MSG-2024-000145', 'rejected');

INSERT INTO delivery_status_event (event_id, delivery_id, status, occurred_at, message) VALUES
    (1, 1, 'sent', '2023-09-20T10:16:02Z', NULL),
    (2, 1, 'live', '2023-10-06T00:00:00Z', 'Available in all licensed territories'),
    (3, 3, 'rejected', '2024-02-01T09:42:10Z', 'Artwork below minimum resolution');
