# kind: a COW fault that maps the new page without copying the old content
perl -0777 -pi -e 's/\tmemcpy\(page_address\(new\), page_address\(old\), PAGE_SIZE\);\n// or die "no match\n"' mm/fault.c
