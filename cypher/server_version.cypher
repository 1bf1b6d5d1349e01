CALL dbms.components() YIELD name, versions, edition
RETURN versions[0] AS version, edition
