-- A hub's PostgreSQL database at the schema of commit 017af10 (migrations v1 … v10-snake-case-bodies),
-- with a few rows: SchemaMigrationTests migrates it. pg_dump --no-owner --no-privileges --inserts, comments left out.


SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

CREATE EXTENSION IF NOT EXISTS postgis WITH SCHEMA public;

CREATE EXTENSION IF NOT EXISTS pgrouting WITH SCHEMA public;

SET default_tablespace = '';

SET default_table_access_method = heap;

CREATE TABLE public.devices (
    device_id text NOT NULL,
    token_sha256 text NOT NULL,
    revoked boolean DEFAULT false NOT NULL,
    managed_by text DEFAULT 'file'::text NOT NULL,
    CONSTRAINT devices_managed_by_check CHECK ((managed_by = ANY (ARRAY['file'::text, 'command'::text])))
);

CREATE TABLE public.hub_migrations (
    version text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.live_positions (
    device_id text NOT NULL,
    body bytea NOT NULL,
    updates bigint DEFAULT 1 NOT NULL,
    received_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.map_attempts (
    device_id text NOT NULL,
    id text NOT NULL,
    attempts integer NOT NULL,
    set_aside text
);

CREATE TABLE public.map_dirty (
    tile_row integer NOT NULL,
    tile_column integer NOT NULL,
    version bigint NOT NULL,
    claimed_until timestamp with time zone
);

CREATE SEQUENCE public.map_dirty_version
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

CREATE TABLE public.map_edition (
    value text NOT NULL
);

CREATE TABLE public.map_indexed (
    device_id text NOT NULL,
    id text NOT NULL
);

CREATE TABLE public.map_link_riders (
    link bigint NOT NULL,
    device_id text NOT NULL
);

CREATE TABLE public.map_links (
    id bigint NOT NULL,
    source bigint NOT NULL,
    target bigint NOT NULL,
    from_lat double precision NOT NULL,
    from_lon double precision NOT NULL,
    to_lat double precision NOT NULL,
    to_lon double precision NOT NULL,
    length_m double precision NOT NULL,
    trips integer NOT NULL,
    riders integer NOT NULL,
    last_day integer,
    rated_optimal integer NOT NULL,
    rated_medium integer NOT NULL,
    rated_sufficient integer NOT NULL,
    rated_requires_maintenance integer NOT NULL,
    obstacles integer DEFAULT 0 NOT NULL,
    obstacle_confidence double precision DEFAULT 0 NOT NULL,
    cost double precision DEFAULT 0 NOT NULL,
    tile_row integer NOT NULL,
    tile_column integer NOT NULL,
    geom public.geometry(LineString,4326) NOT NULL
)
WITH (fillfactor='70');

CREATE SEQUENCE public.map_links_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.map_links_id_seq OWNED BY public.map_links.id;

CREATE TABLE public.map_network_queue (
    seq bigint NOT NULL,
    device_id text NOT NULL,
    id text NOT NULL
);

CREATE SEQUENCE public.map_network_queue_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.map_network_queue_seq_seq OWNED BY public.map_network_queue.seq;

CREATE TABLE public.map_network_state (
    applied bigint NOT NULL,
    next_node bigint NOT NULL,
    lease_holder text,
    leased_until timestamp with time zone
);

CREATE TABLE public.map_nodes (
    id bigint NOT NULL,
    lat double precision NOT NULL,
    lon double precision NOT NULL,
    tile_row integer NOT NULL,
    tile_column integer NOT NULL,
    geom public.geometry(Point,4326) NOT NULL
);

CREATE TABLE public.map_passes (
    cell_row integer NOT NULL,
    cell_column integer NOT NULL,
    sector integer NOT NULL,
    rides integer NOT NULL
)
WITH (fillfactor='70');

CREATE TABLE public.map_reports (
    tile_row integer NOT NULL,
    tile_column integer NOT NULL,
    cell_row integer NOT NULL,
    cell_column integer NOT NULL,
    sector integer NOT NULL,
    kind text NOT NULL,
    device_id text NOT NULL,
    reports integer NOT NULL,
    lat_sum bigint NOT NULL,
    lon_sum bigint NOT NULL,
    axis_x bigint NOT NULL,
    axis_y bigint NOT NULL,
    first_day integer,
    last_day integer
);

CREATE TABLE public.map_status_riders (
    tile_row integer NOT NULL,
    tile_column integer NOT NULL,
    cell_row integer NOT NULL,
    cell_column integer NOT NULL,
    riders integer NOT NULL
);

CREATE TABLE public.map_stretch_riders (
    tile_row integer NOT NULL,
    tile_column integer NOT NULL,
    cell_row integer NOT NULL,
    cell_column integer NOT NULL,
    device_id text NOT NULL
);

CREATE TABLE public.map_stretches (
    tile_row integer NOT NULL,
    tile_column integer NOT NULL,
    cell_row integer NOT NULL,
    cell_column integer NOT NULL,
    status text NOT NULL,
    length_mm bigint NOT NULL
);

CREATE TABLE public.map_tile_records (
    tile_row integer NOT NULL,
    tile_column integer NOT NULL,
    device_id text NOT NULL,
    id text NOT NULL
);

CREATE TABLE public.map_tiles (
    tile_row integer NOT NULL,
    tile_column integer NOT NULL,
    slice bytea NOT NULL
);

CREATE TABLE public.records (
    device_id text NOT NULL,
    kind text NOT NULL,
    id text NOT NULL,
    sha256 text NOT NULL,
    body bytea NOT NULL,
    received_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT records_kind_check CHECK ((kind = ANY (ARRAY['sos'::text, 'confirmation'::text, 'draft'::text, 'trip'::text])))
);

ALTER TABLE ONLY public.map_links ALTER COLUMN id SET DEFAULT nextval('public.map_links_id_seq'::regclass);

ALTER TABLE ONLY public.map_network_queue ALTER COLUMN seq SET DEFAULT nextval('public.map_network_queue_seq_seq'::regclass);

INSERT INTO public.devices VALUES ('rider-a', '8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4', false, 'file');
INSERT INTO public.devices VALUES ('rider-b', '2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae', true, 'command');

INSERT INTO public.hub_migrations VALUES ('v1', '2026-11-27 09:00:00+00');
INSERT INTO public.hub_migrations VALUES ('v2-map-tiles', '2026-11-27 09:00:00+00');
INSERT INTO public.hub_migrations VALUES ('v3-path-network', '2026-11-27 09:00:00+00');
INSERT INTO public.hub_migrations VALUES ('v4-map-claims', '2026-11-27 09:00:00+00');
INSERT INTO public.hub_migrations VALUES ('v5-map-edition', '2026-11-27 09:00:00+00');
INSERT INTO public.hub_migrations VALUES ('v6-map-evidence', '2026-11-27 09:00:00+00');
INSERT INTO public.hub_migrations VALUES ('v7-network-lease', '2026-11-27 09:00:00+00');
INSERT INTO public.hub_migrations VALUES ('v8-update-room', '2026-11-27 09:00:00+00');
INSERT INTO public.hub_migrations VALUES ('v10-snake-case-bodies', '2026-11-27 09:00:00+00');
INSERT INTO public.hub_migrations VALUES ('v9-map-attempts', '2026-11-27 09:00:00+00');

INSERT INTO public.live_positions VALUES ('rider-a', '\x7b7d', 3, '2026-11-27 12:00:00+00');

INSERT INTO public.map_attempts VALUES ('rider-a', 'c-1', 2, NULL);

INSERT INTO public.map_dirty VALUES (800, 50, 7, NULL);

INSERT INTO public.map_network_state VALUES (0, 1, NULL, NULL);

INSERT INTO public.map_stretch_riders VALUES (800, 50, 41000, 2600, 'rider-a');
INSERT INTO public.map_stretch_riders VALUES (800, 50, 41001, 2600, 'rider-b');

INSERT INTO public.records VALUES ('rider-a', 'sos', 'sos-1', 'a3f1', '\x7b226964223a22736f732d31227d', '2026-11-27 10:00:00+00');
INSERT INTO public.records VALUES ('rider-b', 'draft', 'draft-1', 'b4e2', '\x7b226964223a2264726166742d31227d', '2026-11-27 11:30:00+00');

SELECT pg_catalog.setval('public.map_dirty_version', 7, true);

SELECT pg_catalog.setval('public.map_links_id_seq', 1, false);

SELECT pg_catalog.setval('public.map_network_queue_seq_seq', 1, false);

ALTER TABLE ONLY public.devices
    ADD CONSTRAINT devices_pkey PRIMARY KEY (device_id);

ALTER TABLE ONLY public.devices
    ADD CONSTRAINT devices_token_sha256_key UNIQUE (token_sha256);

ALTER TABLE ONLY public.hub_migrations
    ADD CONSTRAINT hub_migrations_pkey PRIMARY KEY (version);

ALTER TABLE ONLY public.live_positions
    ADD CONSTRAINT live_positions_pkey PRIMARY KEY (device_id);

ALTER TABLE ONLY public.map_attempts
    ADD CONSTRAINT map_attempts_pkey PRIMARY KEY (device_id, id);

ALTER TABLE ONLY public.map_dirty
    ADD CONSTRAINT map_dirty_pkey PRIMARY KEY (tile_row, tile_column);

ALTER TABLE ONLY public.map_indexed
    ADD CONSTRAINT map_indexed_pkey PRIMARY KEY (device_id, id);

ALTER TABLE ONLY public.map_link_riders
    ADD CONSTRAINT map_link_riders_pkey PRIMARY KEY (link, device_id);

ALTER TABLE ONLY public.map_links
    ADD CONSTRAINT map_links_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.map_links
    ADD CONSTRAINT map_links_source_target_key UNIQUE (source, target);

ALTER TABLE ONLY public.map_network_queue
    ADD CONSTRAINT map_network_queue_device_id_id_key UNIQUE (device_id, id);

ALTER TABLE ONLY public.map_network_queue
    ADD CONSTRAINT map_network_queue_pkey PRIMARY KEY (seq);

ALTER TABLE ONLY public.map_nodes
    ADD CONSTRAINT map_nodes_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.map_passes
    ADD CONSTRAINT map_passes_pkey PRIMARY KEY (cell_row, cell_column, sector);

ALTER TABLE ONLY public.map_reports
    ADD CONSTRAINT map_reports_pkey PRIMARY KEY (tile_row, tile_column, cell_row, cell_column, sector, kind, device_id);

ALTER TABLE ONLY public.map_status_riders
    ADD CONSTRAINT map_status_riders_pkey PRIMARY KEY (tile_row, tile_column, cell_row, cell_column);

ALTER TABLE ONLY public.map_stretch_riders
    ADD CONSTRAINT map_stretch_riders_pkey PRIMARY KEY (cell_row, cell_column, device_id);

ALTER TABLE ONLY public.map_stretches
    ADD CONSTRAINT map_stretches_pkey PRIMARY KEY (tile_row, tile_column, cell_row, cell_column, status);

ALTER TABLE ONLY public.map_tile_records
    ADD CONSTRAINT map_tile_records_pkey PRIMARY KEY (tile_row, tile_column, device_id, id);

ALTER TABLE ONLY public.map_tiles
    ADD CONSTRAINT map_tiles_pkey PRIMARY KEY (tile_row, tile_column);

ALTER TABLE ONLY public.records
    ADD CONSTRAINT records_pkey PRIMARY KEY (device_id, kind, id);

CREATE INDEX map_links_by_tile ON public.map_links USING btree (tile_row, tile_column);

CREATE INDEX map_links_geom ON public.map_links USING gist (geom);

CREATE INDEX map_nodes_by_tile ON public.map_nodes USING btree (tile_row, tile_column);

CREATE INDEX map_nodes_geom ON public.map_nodes USING gist (geom);

CREATE INDEX records_by_kind ON public.records USING btree (kind);

ALTER TABLE ONLY public.records
    ADD CONSTRAINT records_device_id_fkey FOREIGN KEY (device_id) REFERENCES public.devices(device_id);


